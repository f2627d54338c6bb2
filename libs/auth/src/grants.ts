/**
 * Tool grants: allow/deny patterns over `provider:path/tool`, per principal and per role; deny wins.
 *
 * Pattern grammar: `<provider>:<path>/<tool>` where `*` matches within one segment and `**` across
 * segments (`cloud:billing/**`, `local:file/*`). `<provider>:*` and a bare `*` mean
 * everything of that provider / everything. A pattern also matches a tool by its id
 * (`local:file_read`), whatever its path.
 */
import { readFileSync } from 'node:fs';

import { AuthConfigError } from './errors';
import { type FileContent, PolledFile, type PolledFileOptions } from './polled-file';
import { type Principal, ROLES, type Role } from './principal';

/** One rule set. */
export interface GrantRule {
  allow?: string[];
  deny?: string[];
}

/** The grants file: rules per role and per principal id. */
export interface GrantsConfig {
  roles?: Partial<Record<Role, GrantRule>>;
  principals?: Record<string, GrantRule>;
}

/** A tool as grants see it. */
export interface ToolRef {
  provider: string;
  path: string;
  name: string;
}

/** Without a grants file every role sees every tool (local mode and single-tenant installs). */
export const DEFAULT_GRANTS: GrantsConfig = { roles: { agent: { allow: ['*'] }, operator: { allow: ['*'] }, admin: { allow: ['*'] } } };

function compile(pattern: string): RegExp {
  const p = pattern.trim();
  if (p === '*' || p === '**') return /^.*$/s;
  const colon = p.indexOf(':');
  if (colon < 1) throw new AuthConfigError('bad_grants_file', `grant pattern ${JSON.stringify(pattern)} must look like provider:path/tool (e.g. "cloud:billing/**", "mcp:*")`);
  const provider = p.slice(0, colon);
  const rest = p.slice(colon + 1) || '**';
  const glob = (s: string) =>
    s
      .split(/(\*\*|\*)/)
      .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
  const body = rest === '*' ? '.*' : glob(rest);
  return new RegExp(`^${glob(provider).replace(/\.\*/g, '[^:]*')}:${body}$`, 's');
}

class RuleSet {
  readonly allow: RegExp[];
  readonly deny: RegExp[];
  constructor(rules: GrantRule[]) {
    this.allow = rules.flatMap((r) => (r.allow ?? []).map(compile));
    this.deny = rules.flatMap((r) => (r.deny ?? []).map(compile));
  }
  /** Allow-everything and deny-nothing: filtering can be skipped. */
  get unrestricted(): boolean {
    return this.deny.length === 0 && this.allow.some((r) => r.source === '^.*$');
  }
  permits(t: ToolRef): boolean {
    const keys = [`${t.provider}:${t.path ? `${t.path}/` : ''}${t.name}`, `${t.provider}:${t.name}`];
    if (this.deny.some((r) => keys.some((k) => r.test(k)))) return false;
    return this.allow.some((r) => keys.some((k) => r.test(k)));
  }
}

/** What one principal may see and run. */
export interface ToolView {
  /** True when nothing is hidden (fast path: no filtering needed). */
  readonly unrestricted: boolean;
  /** A stable key of the rules in force (views with equal keys see the same tools). */
  readonly key: string;
  permits(tool: ToolRef): boolean;
}

/** Options of {@link Grants.load}. */
export interface GrantsFileOptions extends PolledFileOptions {
  /** Told after a reload changed the grants (a failed one goes to `onReloadError`; the previous grants stay). @default no-op */
  onReload?: () => void;
}

function readGrantsFile(path: string): FileContent<GrantsConfig> {
  let text: string;
  let doc: GrantsConfig;
  try {
    text = readFileSync(path, 'utf8');
    doc = JSON.parse(text) as GrantsConfig;
  } catch (err) {
    throw new AuthConfigError('bad_grants_file', `cannot read grants from ${path}: ${(err as Error).message}`, { cause: err });
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new AuthConfigError('bad_grants_file', `${path} must hold {"roles": {...}, "principals": {...}}`);
  return { text, value: doc };
}

/** Throws AuthConfigError when a pattern or role of `config` is malformed. */
function check(config: GrantsConfig): void {
  for (const rule of [...Object.values(config.roles ?? {}), ...Object.values(config.principals ?? {})]) new RuleSet([rule ?? {}]);
  for (const role of Object.keys(config.roles ?? {})) {
    if (!(ROLES as readonly string[]).includes(role)) throw new AuthConfigError('bad_grants_file', `unknown role ${JSON.stringify(role)} in grants; roles are ${ROLES.join(', ')}`);
  }
}

/**
 * Grants of every role and principal, checked up front. From a file ({@link Grants.load}) they are
 * re-read when the file changes, so a grant or a revocation takes effect without a restart (the
 * next call sees it); a broken file keeps the grants in force.
 */
export class Grants {
  private views = new Map<string, ToolView>();
  private config: GrantsConfig;
  private file: PolledFile<GrantsConfig> | undefined;

  /** @throws AuthConfigError when a pattern or role is malformed. */
  constructor(config: GrantsConfig = DEFAULT_GRANTS) {
    check(config);
    this.config = config;
  }

  /**
   * Reads a grants file once (JSON: `{"roles": {"agent": {"allow": [...], "deny": [...]}}, "principals": {"key:ci": {...}}}`).
   * Use {@link Grants.load} for a server, which should follow changes.
   * @throws AuthConfigError
   */
  static fromFile(path: string): Grants {
    return new Grants(readGrantsFile(path).value);
  }

  /**
   * Loads a grants file and re-reads it every `reloadIntervalMs` ({@link PolledFile}).
   * `close()` stops the polling.
   * @throws AuthConfigError when the file is missing or malformed (fatal at start; later, the old grants stay)
   */
  static load(path: string, options: GrantsFileOptions = {}): Grants {
    const src = readGrantsFile(path);
    const grants = new Grants(src.value);
    grants.file = new PolledFile(() => readGrantsFile(path), (config) => grants.replace(config, options), src.text, options);
    return grants;
  }

  /**
   * Re-reads the file now; returns true when the grants changed. A missing or malformed file keeps
   * the grants in force (reported through `onReloadError`). Always false for grants not from a file.
   */
  reload(): boolean {
    return this.file?.reload() ?? false;
  }

  /** Stops following the file. */
  close(): void {
    this.file?.close();
  }

  private replace(config: GrantsConfig, options: GrantsFileOptions): void {
    check(config);
    // Swap config and views together: a view is never built from the old rules after this point.
    this.config = config;
    this.views = new Map();
    options.onReload?.();
  }

  /** The view of `principal`: its own rules plus those of each role it lists (the rules in force now). */
  /** The rules in force (a copy), and whether they are the default (no grants file: every role sees every tool). */
  rules(): { config: GrantsConfig; isDefault: boolean } {
    return { config: JSON.parse(JSON.stringify(this.config)) as GrantsConfig, isDefault: this.config === DEFAULT_GRANTS };
  }

  viewOf(principal: Principal): ToolView {
    const key = `${principal.id}|${principal.roles.join(',')}`;
    let view = this.views.get(key);
    if (!view) {
      const rules: GrantRule[] = [];
      for (const role of ROLES) if (principal.roles.includes(role) && this.config.roles?.[role]) rules.push(this.config.roles[role]!);
      const own = this.config.principals?.[principal.id];
      if (own) rules.push(own);
      const set = new RuleSet(rules);
      view = { unrestricted: set.unrestricted, key: JSON.stringify(rules), permits: (t) => set.permits(t) };
      if (this.views.size > 10_000) this.views.clear();
      this.views.set(key, view);
    }
    return view;
  }
}

/** The view of local mode and in-process calls: everything. */
export const UNRESTRICTED_VIEW: ToolView = { unrestricted: true, key: '*', permits: () => true };
