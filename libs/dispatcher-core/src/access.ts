/**
 * Access for operators: who may call this dispatcher and what each principal may see
 * (GetAccess), and searching as another principal sees the catalog (SearchTools `view_as`), so an
 * operator can check a grant before an agent trips over it. Never a key, a hash or a signing key.
 */
import { type Authenticator, DEFAULT_GRANTS, type Grants, hasRole, isRole, type Principal } from '@toolhub/auth';
import { closestMatches, type GetAccessResponse, ToolHubError } from '@toolhub/contracts';
import { type CallContext, principalOf } from '@toolhub/grpc-edge';

/** GetAccess: credential types, the principals the configuration names, JWT requirements and the grants in force. */
export function describeAccess(authenticator: Authenticator | undefined, grants: Grants | undefined): GetAccessResponse {
  const who = authenticator?.describe();
  const rules = grants?.rules();
  const config = rules?.config ?? DEFAULT_GRANTS;
  return {
    localMode: who?.localMode ?? true,
    methods: who?.methods ?? [],
    principals: (who?.principals ?? []).map((p) => ({ id: p.id, roles: p.roles, method: p.method, revoked: p.revoked })),
    jwtIssuer: who?.jwt?.issuer ?? '',
    jwtAudience: who?.jwt?.audience ?? '',
    jwtRolesClaim: who?.jwt?.rolesClaim ?? '',
    grants: [
      ...Object.entries(config.roles ?? {}).map(([role, r]) => ({ subject: `role:${role}`, allow: r?.allow ?? [], deny: r?.deny ?? [] })),
      ...Object.entries(config.principals ?? {}).map(([id, r]) => ({ subject: id, allow: r.allow ?? [], deny: r.deny ?? [] })),
    ],
    grantsDefault: rules?.isDefault ?? true,
  };
}

/**
 * The call as the principal `viewAs` would make it (for SearchTools `view_as`): only an operator
 * or admin may ask, and only for a principal the configuration names or a role.
 * @throws ToolHubError permission_denied for an agent; invalid_argument / not_found for a bad `viewAs`.
 */
export function callViewedAs(viewAs: string, call: CallContext, authenticator: Authenticator | undefined): CallContext {
  const caller = principalOf(call);
  if (caller.method !== 'local' && !hasRole(caller, 'operator')) {
    throw new ToolHubError('permission_denied', `view_as is for operators: principal ${caller.id} (roles: ${caller.roles.join(', ') || 'none'}) may search only as itself. Leave view_as empty.`);
  }
  const role = /^role:(.+)$/.exec(viewAs)?.[1];
  if (role !== undefined) {
    if (!isRole(role)) throw ToolHubError.invalidArgument(`view_as "${viewAs}" names no role; use role:agent, role:operator or role:admin.`, [{ field: 'view_as', message: 'unknown role', expected: 'role:agent | role:operator | role:admin', example: 'role:agent' }]);
    return { ...call, principal: { id: viewAs, roles: [role], method: 'api_key' } satisfies Principal };
  }
  if (viewAs.startsWith('jwt:')) {
    throw ToolHubError.invalidArgument(`view_as "${viewAs}": a JWT principal's roles come from its token, which ToolHub does not keep; search as its role instead (e.g. role:agent).`, [{ field: 'view_as', message: 'JWT principals cannot be viewed as', expected: 'key:<name>, mtls:<CN> or role:<role>', example: 'role:agent' }]);
  }
  const known = authenticator?.describe().principals ?? [];
  const found = known.find((p) => p.id === viewAs);
  if (!found) {
    const names = known.map((p) => p.id);
    const close = closestMatches(viewAs, names, 3);
    throw ToolHubError.notFound(`view_as "${viewAs}" is not a principal this dispatcher knows. Known: ${[...names, 'role:agent', 'role:operator', 'role:admin'].join(', ')} (GetAccess lists them).`, close);
  }
  return { ...call, principal: { id: found.id, roles: found.roles, method: found.method } };
}
