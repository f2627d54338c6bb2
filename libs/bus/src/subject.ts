/**
 * NATS subject rules, shared by both bus implementations so the in-process bus accepts and rejects
 * exactly what a real server would (a fake that is more lenient than production hides bugs).
 *
 * A subject is dot-separated tokens. In a *pattern* (subscribe, serve, consumer filters) a token may
 * be `*` (exactly one token) or, as the last token only, `>` (one or more remaining tokens).
 */
import { BusError } from './errors';

/** Characters NATS forbids inside a token (whitespace would split the protocol line). */
const FORBIDDEN = /[\s]/;

function tokens(subject: string): string[] {
  return subject.split('.');
}

/**
 * Throws `invalid_argument` unless `subject` is a concrete subject (no wildcards), as required to
 * publish or request.
 */
export function assertPublishSubject(subject: string): void {
  // The same few subjects are published to again and again: remember the ones already checked.
  if (checkedPublishSubjects.has(subject)) return;
  if (typeof subject !== 'string' || subject.length === 0 || FORBIDDEN.test(subject)) {
    throw new BusError('invalid_argument', `invalid subject ${JSON.stringify(subject)}: must be non-empty without whitespace`);
  }
  for (const t of tokens(subject)) {
    if (t.length === 0) throw new BusError('invalid_argument', `invalid subject "${subject}": empty token`);
    if (t === '*' || t === '>') {
      throw new BusError('invalid_argument', `invalid subject "${subject}": wildcards are only allowed when subscribing`);
    }
  }
  if (checkedPublishSubjects.size >= MAX_CHECKED_SUBJECTS) checkedPublishSubjects.clear();
  checkedPublishSubjects.add(subject);
}

/** Valid publish subjects seen recently (bounded: cleared when full). */
const checkedPublishSubjects = new Set<string>();
const MAX_CHECKED_SUBJECTS = 1024;

/** Throws `invalid_argument` unless `pattern` is a valid subscription subject (wildcards allowed). */
export function assertPattern(pattern: string): void {
  if (typeof pattern !== 'string' || pattern.length === 0 || FORBIDDEN.test(pattern)) {
    throw new BusError('invalid_argument', `invalid subject ${JSON.stringify(pattern)}: must be non-empty without whitespace`);
  }
  const ts = tokens(pattern);
  ts.forEach((t, i) => {
    if (t.length === 0) throw new BusError('invalid_argument', `invalid subject "${pattern}": empty token`);
    if (t === '>' && i !== ts.length - 1) {
      throw new BusError('invalid_argument', `invalid subject "${pattern}": ">" must be the last token`);
    }
  });
}

/** True when the concrete `subject` matches `pattern` (`*` = one token, `>` = one or more). */
export function subjectMatches(pattern: string, subject: string): boolean {
  if (pattern === subject) return true;
  const p = tokens(pattern);
  const s = tokens(subject);
  for (let i = 0; i < p.length; i++) {
    const t = p[i];
    if (t === '>') return s.length > i;
    if (i >= s.length) return false;
    if (t !== '*' && t !== s[i]) return false;
  }
  return p.length === s.length;
}

/**
 * One server-side filter that covers every pattern in `patterns`, for servers that accept a single
 * consumer filter (nats-server < 2.10). Same-length patterns without `>` keep equal tokens and use `*`
 * where they differ (`a.x.*` + `a.y.*` → `a.*.*`); otherwise the common token prefix plus `>`
 * (`a.b.c` + `a.b.d.e` → `a.b.>`). Returns `undefined` when nothing narrower than "everything" exists.
 * The caller must still filter client-side: the result may match more than the patterns do.
 */
export function coveringPattern(patterns: readonly string[]): string | undefined {
  const first = patterns[0];
  if (first === undefined) return undefined;
  if (patterns.every((p) => p === first)) return first;
  const split = patterns.map(tokens);
  const len = split[0]?.length ?? 0;
  const sameShape = split.every((ts) => ts.length === len && !ts.includes('>'));
  if (sameShape) {
    const out: string[] = [];
    for (let i = 0; i < len; i++) {
      const column = split.map((ts) => ts[i]);
      out.push(column.every((t) => t === column[0]) ? (column[0] as string) : '*');
    }
    if (out.every((t) => t === '*')) return undefined;
    return out.join('.');
  }
  const prefix: string[] = [];
  for (let i = 0; ; i++) {
    const column = split.map((ts) => ts[i]);
    const t = column[0];
    // A wildcard token cannot be part of a literal prefix: `a.*.c` and `a.b.c` share only `a`.
    if (t === undefined || t === '*' || t === '>' || !column.every((c) => c === t)) break;
    // Keep at least one token for the `>`: `a.b` + `a.b.c` must become `a.>`, not `a.b.>` (which
    // would not match `a.b` itself).
    if (split.some((ts) => ts.length === i + 1)) break;
    prefix.push(t);
  }
  return prefix.length === 0 ? undefined : `${prefix.join('.')}.>`;
}
