/**
 * Who is calling: the identity ToolHub derives from credentials (never from a request field) and
 * the roles that decide what it may do.
 */

/** The three roles of the design's RBAC. `agent` uses tools; `operator` edits the registry; `admin` does both. */
export type Role = 'agent' | 'operator' | 'admin';

/** Every role, weakest first. */
export const ROLES: readonly Role[] = ['agent', 'operator', 'admin'];

/** How a principal proved who it is. */
export type AuthMethod = 'api_key' | 'jwt' | 'mtls' | 'local';

/** An authenticated caller. */
export interface Principal {
  /**
   * Stable identity from the credentials: `key:<name>` (API key), `jwt:<issuer>#<subject>`,
   * `mtls:<certificate subject CN>`, or `local` (loopback mode without auth). Limits, grants,
   * statistics and the audit log key on it.
   */
  readonly id: string;
  readonly roles: readonly Role[];
  readonly method: AuthMethod;
}

/**
 * The principal of local mode (auth off, loopback only): one trusted user with every role, as
 * before auth existed. Also used for in-process calls (warm start, one-process mode).
 */
export const LOCAL_PRINCIPAL: Principal = Object.freeze({ id: 'local', roles: Object.freeze(['admin'] as Role[]), method: 'local' as const });

/** True when `principal` holds `role`, where `admin` holds every role. */
export function hasRole(principal: Principal, role: Role): boolean {
  return principal.roles.includes(role) || principal.roles.includes('admin');
}

/** True when `value` names a role. */
export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/**
 * The label statistics and events carry for a call: the principal, then the request's
 * self-asserted `caller` under it (`key:fleet-a/agent-17`). A `caller` can only subdivide its own
 * principal, never impersonate another. In local mode (one trusted user) the `caller` stays as it
 * was before auth existed, so local statistics and per-caller limits keep their meaning.
 */
export function callerLabel(principal: Principal, caller: string): string {
  if (principal.method === 'local') return caller;
  return caller ? `${principal.id}/${caller}` : principal.id;
}

/**
 * The key concurrency limits count under: the principal (a client cannot escape its limit by
 * inventing `caller` values), or in local mode the self-asserted caller as before.
 */
export function limitKey(principal: Principal, caller: string): string {
  return principal.method === 'local' ? caller : principal.id;
}
