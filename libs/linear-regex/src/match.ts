/** Iterating matches and JavaScript-style replacement over a compiled {@link LinearRegex}. */
import type { LinearRegex } from './compile';

/** One match: the text, its UTF-16 index, its numbered groups and (when the pattern names some) its named groups. */
export interface RegexMatch {
  match: string;
  index: number;
  groups: Array<string | null>;
  named?: Record<string, string | null>;
}

/** Yields successive matches of `re` in `text` (an empty match advances by one position). */
export function* matchAll(re: LinearRegex, text: string): Generator<RegexMatch> {
  const m = re.matcher(text);
  const names = Object.entries(re.namedGroups() as Record<string, number>);
  const count = re.groupCount();
  while (m.find()) {
    const groups: Array<string | null> = [];
    for (let g = 1; g <= count; g++) groups.push(m.group(g) ?? null);
    const entry: RegexMatch = { match: m.group() ?? '', index: m.start(), groups };
    if (names.length > 0) entry.named = Object.fromEntries(names.map(([name, i]) => [name, groups[i - 1] ?? null]));
    yield entry;
  }
}

/**
 * Expands a JavaScript-style replacement for one match: `$$`, `$&`, `` $` ``, `$'`, `$1`–`$99` and
 * `$<name>`; anything else stays literal (the rules of String.prototype.replace).
 */
export function expandReplacement(replacement: string, match: RegexMatch, text: string): string {
  if (!replacement.includes('$')) return replacement;
  return replacement.replace(/\$(\$|&|`|'|\d{1,2}|<([^>]*)>)/g, (whole: string, token: string, name: string | undefined) => {
    if (token === '$') return '$';
    if (token === '&') return match.match;
    if (token === '`') return text.slice(0, match.index);
    if (token === "'") return text.slice(match.index + match.match.length);
    if (name !== undefined) return match.named && name in match.named ? (match.named[name] ?? '') : whole;
    // Two digits name a group only when it exists; otherwise one digit and a literal digit.
    const two = Number(token);
    if (token.length === 2 && two >= 1 && two <= match.groups.length) return match.groups[two - 1] ?? '';
    const one = Number(token[0]);
    if (one >= 1 && one <= match.groups.length) return (match.groups[one - 1] ?? '') + token.slice(1);
    return whole;
  });
}

/** Replaces the first or every match of `re` in `text`; returns the new text and the count. */
export function replaceMatches(re: LinearRegex, text: string, replacement: string, all: boolean): { text: string; replacements: number } {
  const parts: string[] = [];
  let last = 0;
  let replacements = 0;
  for (const m of matchAll(re, text)) {
    parts.push(text.slice(last, m.index), expandReplacement(replacement, m, text));
    last = m.index + m.match.length;
    replacements++;
    if (!all) break;
  }
  if (replacements === 0) return { text, replacements };
  parts.push(text.slice(last));
  return { text: parts.join(''), replacements };
}
