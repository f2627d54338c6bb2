/** @toolhub/auth — principals, credentials (API keys, JWT, mTLS), roles and tool grants. */
export { type ApiKeyEntry, ApiKeyStore, type ApiKeyStoreOptions, hashApiKey, type KnownPrincipal } from './api-keys';
export { type AccessDescription, Authenticator, type AuthenticatorOptions, type Credentials } from './authenticator';
export { AuthConfigError, unauthenticated } from './errors';
export { DEFAULT_GRANTS, type GrantRule, Grants, type GrantsConfig, type GrantsFileOptions, type ToolRef, type ToolView, UNRESTRICTED_VIEW } from './grants';
export { DEFAULT_MAX_AGE_SEC, type JwtOptions, JwtVerifier, parseMaxAge } from './jwt';
export { type AuthMethod, callerLabel, hasRole, isRole, limitKey, LOCAL_PRINCIPAL, type Principal, type Role, ROLES } from './principal';
export { authConfigFields, type AuthSettings, type EdgeLog, type EdgeSecurity, edgeSecurityFrom, natsAuthConfigFields } from './config';
