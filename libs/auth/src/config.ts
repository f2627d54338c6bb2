/**
 * The environment settings of authentication, TLS and grants, shared by every app that serves a
 * gRPC API (dispatcher, registry, one-process mode), and what they build.
 */
import { zBoolean } from '@toolhub/config';
import { z } from 'zod';

import { Authenticator } from './authenticator';
import { AuthConfigError } from './errors';
import { Grants } from './grants';
import { parseMaxAge } from './jwt';

/** Config fields for `defineConfig` (spread them into an app's spec). */
export function authConfigFields() {
  return {
    authApiKeys: { env: 'TOOLHUB_AUTH_API_KEYS', schema: z.string().optional(), description: 'API keys: a JSON file {"keys":[{"name","sha256","roles"}]} or a directory of them (a mounted Secret); re-read on change' },
    authJwtIssuer: { env: 'TOOLHUB_AUTH_JWT_ISSUER', schema: z.string().optional(), description: 'JWT bearer tokens: required iss' },
    authJwtAudience: { env: 'TOOLHUB_AUTH_JWT_AUDIENCE', schema: z.string().optional(), description: 'JWT bearer tokens: required aud' },
    authJwtJwks: { env: 'TOOLHUB_AUTH_JWT_JWKS', schema: z.string().optional(), description: 'JWT signing keys: a JWKS file (re-read on change) or an https URL' },
    authJwtRolesClaim: { env: 'TOOLHUB_AUTH_JWT_ROLES_CLAIM', schema: z.string().min(1).default('roles'), description: 'JWT claim listing the roles (agent, operator, admin)' },
    authJwtMaxAge: {
      env: 'TOOLHUB_AUTH_JWT_MAX_AGE',
      schema: z.string().default('24h'),
      description: 'JWT bearer tokens: oldest accepted token, counted from its iat (seconds, or 30m, 24h, 7d); tokens without exp or iat are refused',
    },
    authMtlsSubjects: { env: 'TOOLHUB_AUTH_MTLS_SUBJECTS', schema: z.string().optional(), description: 'mTLS identities: JSON file {"<certificate CN>": ["agent"]}; needs TOOLHUB_TLS_CLIENT_CA' },
    authGrants: { env: 'TOOLHUB_AUTH_GRANTS', schema: z.string().optional(), description: 'Tool grants: JSON file {"roles": {"agent": {"allow": ["local:*"], "deny": []}}, "principals": {...}}; default: every role sees every tool; re-read on change' },
    allowUnauthenticated: {
      env: 'TOOLHUB_ALLOW_UNAUTHENTICATED',
      schema: zBoolean().default(false),
      description: 'Serve a non-loopback address without auth (only behind a proxy that authenticates); otherwise such a start is refused',
    },
    tlsCert: { env: 'TOOLHUB_TLS_CERT', schema: z.string().optional(), description: 'TLS certificate (PEM) of the gRPC API(s); reloaded on change' },
    tlsKey: { env: 'TOOLHUB_TLS_KEY', schema: z.string().optional(), description: 'TLS private key (PEM) of the gRPC API(s)' },
    tlsClientCa: { env: 'TOOLHUB_TLS_CLIENT_CA', schema: z.string().optional(), description: 'CA (PEM) of client certificates; when set, clients must present one (mTLS)' },
  };
}

/** The parsed values of {@link authConfigFields}. */
export interface AuthSettings {
  authApiKeys?: string;
  authJwtIssuer?: string;
  authJwtAudience?: string;
  authJwtJwks?: string;
  authJwtRolesClaim: string;
  /** @default '24h' */
  authJwtMaxAge?: string;
  authMtlsSubjects?: string;
  authGrants?: string;
  allowUnauthenticated: boolean;
  tlsCert?: string;
  tlsKey?: string;
  tlsClientCa?: string;
}

/** The log of {@link edgeSecurityFrom}: pino's methods. `error` is used when one is given (a refused key file). */
export interface EdgeLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  error?(obj: object, msg: string): void;
}

/** What an app passes to its gRPC server(s). */
export interface EdgeSecurity {
  authenticator: Authenticator;
  grants?: Grants;
  /** TLS files, with reload reports for the log (see ServerTlsOptions of @toolhub/grpc-edge). */
  tls?: { certFile: string; keyFile: string; clientCaFile?: string; onReload: () => void; onReloadError: (err: Error) => void };
  allowUnauthenticated: boolean;
  /** One line for the start banner: local mode, or which credentials and TLS are in force. */
  summary: string;
}

/**
 * Builds the authenticator, grants and TLS settings from config.
 * @throws AuthConfigError on an incomplete combination (naming the variables) or an unreadable file
 */
export function edgeSecurityFrom(s: AuthSettings, log?: EdgeLog): EdgeSecurity {
  const jwtParts = [s.authJwtIssuer, s.authJwtAudience, s.authJwtJwks];
  if (jwtParts.some(Boolean) && !jwtParts.every(Boolean)) {
    throw new AuthConfigError('bad_jwt_config', 'JWT auth needs all three of TOOLHUB_AUTH_JWT_ISSUER, TOOLHUB_AUTH_JWT_AUDIENCE and TOOLHUB_AUTH_JWT_JWKS.');
  }
  if (Boolean(s.tlsCert) !== Boolean(s.tlsKey)) throw new AuthConfigError('bad_tls_config', 'TLS needs both TOOLHUB_TLS_CERT and TOOLHUB_TLS_KEY.');
  if (s.tlsClientCa && !s.tlsCert) throw new AuthConfigError('bad_tls_config', 'TOOLHUB_TLS_CLIENT_CA (mTLS) needs TOOLHUB_TLS_CERT and TOOLHUB_TLS_KEY.');
  if (s.authMtlsSubjects && !s.tlsClientCa) throw new AuthConfigError('bad_tls_config', 'TOOLHUB_AUTH_MTLS_SUBJECTS needs TOOLHUB_TLS_CLIENT_CA, so only certificates of that CA are trusted.');
  // A refused key file is an error, not a warning: a revocation the operator wrote is not in force.
  const keysLog = reloadLog(log?.error ? { warn: log.error.bind(log) } : log, 'API key file refused; keeping the previous keys');
  const grantsLog = reloadLog(log, 'grants file unreadable; keeping the previous grants');
  const tlsLog = reloadLog(log, 'TLS files changed but cannot be used; keeping the certificates in force');
  const authenticator = Authenticator.create({
    apiKeysPath: s.authApiKeys,
    apiKeys: {
      onReload: (keys) => {
        keysLog.recovered();
        log?.info({ keys }, 'API keys reloaded');
      },
      onReloadError: keysLog.failed,
    },
    jwt: s.authJwtIssuer
      ? { issuer: s.authJwtIssuer, audience: s.authJwtAudience!, jwks: s.authJwtJwks!, rolesClaim: s.authJwtRolesClaim, maxAgeSec: parseMaxAge(s.authJwtMaxAge ?? '24h') }
      : undefined,
    mtlsSubjectsPath: s.authMtlsSubjects,
  });
  const grants = s.authGrants
    ? Grants.load(s.authGrants, {
        onReload: () => {
          grantsLog.recovered();
          log?.info({ file: s.authGrants }, 'grants reloaded');
        },
        onReloadError: grantsLog.failed,
      })
    : undefined;
  const tls = s.tlsCert
    ? {
        certFile: s.tlsCert,
        keyFile: s.tlsKey!,
        clientCaFile: s.tlsClientCa,
        onReload: () => {
          tlsLog.recovered();
          log?.info({ cert: s.tlsCert }, 'TLS certificates reloaded');
        },
        onReloadError: tlsLog.failed,
      }
    : undefined;
  const summary = authenticator.enabled
    ? `auth: ${authenticator.methods.join(', ')}${grants ? ' with grants' : ''}; ${tls ? (tls.clientCaFile ? 'TLS with client certificates' : 'TLS') : 'plaintext (set TOOLHUB_TLS_CERT/KEY for TLS)'}`
    : 'local mode: no authentication, every caller is the local admin (loopback only; set TOOLHUB_AUTH_API_KEYS or TOOLHUB_AUTH_JWT_* to require credentials)';
  return { authenticator, grants, tls, allowUnauthenticated: s.allowUnauthenticated, summary };
}

/**
 * The NATS credential variables every app's bus reads (NatsBus takes them from the environment;
 * declared here so each app's config lists and checks them).
 */
export function natsAuthConfigFields() {
  return {
    natsUser: { env: 'NATS_USER', schema: z.string().optional(), description: 'NATS user of this service (with NATS_PASSWORD); see deploy/nats' },
    natsPassword: { env: 'NATS_PASSWORD', schema: z.string().optional(), description: 'Password of NATS_USER', secret: true },
    natsToken: { env: 'NATS_TOKEN', schema: z.string().optional(), description: 'NATS token (instead of a user)', secret: true },
    natsCreds: { env: 'NATS_CREDS', schema: z.string().optional(), description: 'NATS .creds file (JWT + nkey seed; decentralised auth)' },
    natsNkeySeed: { env: 'NATS_NKEY_SEED', schema: z.string().optional(), description: 'NATS nkey seed (SU...)', secret: true },
    natsNkeySeedFile: { env: 'NATS_NKEY_SEED_FILE', schema: z.string().optional(), description: 'File holding a NATS nkey seed' },
    natsInboxPrefix: {
      env: 'NATS_INBOX_PREFIX',
      schema: z.string().optional(),
      description: 'Reply inbox prefix; with per-service NATS users set _INBOX_<user> (users may read only their own inboxes)',
    },
  };
}

/**
 * Logs a file that cannot be reloaded once per distinct problem, not on every poll (the files are
 * read every few seconds; a file left broken would fill the log).
 */
function reloadLog(log: { warn(obj: object, msg: string): void } | undefined, msg: string): { failed: (err: Error) => void; recovered: () => void } {
  let last: string | undefined;
  return {
    failed: (err) => {
      if (err.message === last) return;
      last = err.message;
      log?.warn({ err: err.message }, msg);
    },
    recovered: () => {
      last = undefined;
    },
  };
}
