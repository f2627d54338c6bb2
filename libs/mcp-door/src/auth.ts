/**
 * Credentials on the MCP door, as the MCP authorization spec asks: the same API keys and JWT
 * issuer as gRPC (so the same principals, roles and grants), but a JWT must name THIS resource as
 * its audience — a token minted for another service (or for the gRPC API) is refused, and no token
 * is ever passed on to upstream servers.
 */
import { Authenticator, type AuthSettings } from '@toolhub/auth';

import type { McpSettings } from './options';

/** The canonical URL of the door for these settings (what `resource` and the JWT audience are). */
export function mcpResourceUrl(s: Pick<McpSettings, 'mcpHost' | 'mcpPort' | 'mcpResourceUrl'>): string {
  if (s.mcpResourceUrl) return s.mcpResourceUrl;
  const host = s.mcpHost.includes(':') ? `[${s.mcpHost}]` : s.mcpHost;
  return `http://${host}:${s.mcpPort}/mcp`;
}

/**
 * The door's authenticator: API keys from TOOLHUB_AUTH_API_KEYS; JWTs from TOOLHUB_AUTH_JWT_ISSUER
 * and _JWKS whose `aud` must be {@link mcpResourceUrl}. Disabled (local mode) when neither is set.
 * @throws AuthConfigError when a configured file cannot be loaded
 */
export function mcpAuthenticator(s: AuthSettings & Pick<McpSettings, 'mcpHost' | 'mcpPort' | 'mcpResourceUrl'>): Authenticator {
  return Authenticator.create({
    apiKeysPath: s.authApiKeys,
    jwt: s.authJwtIssuer && s.authJwtJwks ? { issuer: s.authJwtIssuer, audience: mcpResourceUrl(s), jwks: s.authJwtJwks, rolesClaim: s.authJwtRolesClaim } : undefined,
  });
}
