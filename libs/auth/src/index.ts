/** @toolhub/auth — principals, credentials (API keys, JWT, mTLS), roles and tool grants. */
export { type AuthMethod, callerLabel, hasRole, isRole, limitKey, LOCAL_PRINCIPAL, type Principal, type Role, ROLES } from './principal';
