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

/** Grants of every role and principal, checked up front. */
export class Grants {
  private readonly views = new Map<string, ToolView>();
  constructor(private readonly config: GrantsConfig = DEFAULT_GRANTS) {
    for (const rule of [...Object.values(config.roles ?? {}), ...Object.values(config.principals ?? {})]) new RuleSet([rule ?? {}]);
    for (const role of Object.keys(config.roles ?? {})) {
      if (!(ROLES as readonly string[]).includes(role)) throw new AuthConfigError('bad_grants_file', `unknown role ${JSON.stringify(role)} in grants; roles are ${ROLES.join(', ')}`);
    }
  }

  /**
   * Reads a grants file (JSON: `{"roles": {"agent": {"allow": [...], "deny": [...]}}, "principals": {"key:ci": {...}}}`).
   * @throws AuthConfigError
   */
  static fromFile(path: string): Grants {
    let doc: GrantsConfig;
    try {
      doc = JSON.parse(readFileSync(path, 'utf8')) as GrantsConfig;
    } catch (err) {
      throw new AuthConfigError('bad_grants_file', `cannot read grants from ${path}: ${(err as Error).message}`, { cause: err });
    }
    return new Grants(doc);
  }

  /** The view of `principal`: its own rules plus those of each role it lists. */
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
