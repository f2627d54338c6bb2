/**
 * Turns the credentials of one call into a principal: an API key, a JWT bearer token, or a
 * verified mTLS client certificate — whichever is configured and presented. Transport-free: the
 * gRPC edge passes the header values and the peer certificate's subject.
 */
import { readFileSync } from 'node:fs';

import { ApiKeyStore, type ApiKeyStoreOptions, type KnownPrincipal } from './api-keys';
import { AuthConfigError, unauthenticated } from './errors';
import { JwtVerifier, type JwtOptions } from './jwt';
import { isRole, LOCAL_PRINCIPAL, type Principal, type Role } from './principal';

/** What a call presented. */
export interface Credentials {
  /** The `authorization` header: `Bearer <api key or JWT>`. */
  authorization?: string;
  /** The `x-api-key` header. */
  apiKey?: string;
  /** Common name of a client certificate the TLS layer verified against the client CA. */
  certificateSubject?: string;
}

export interface AuthenticatorOptions {
  /** API key file or Secret directory (TOOLHUB_AUTH_API_KEYS). */
  apiKeysPath?: string;
  apiKeys?: ApiKeyStoreOptions;
  /** JWT settings (TOOLHUB_AUTH_JWT_*). */
  jwt?: JwtOptions;
  /**
   * mTLS identities: certificate CN → roles (JSON file `{"<CN>": ["agent"]}`, TOOLHUB_AUTH_MTLS_SUBJECTS).
   * Only certificates the server's client CA verified reach this map.
   */
  mtlsSubjectsPath?: string;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Checks credentials; `enabled` is false in local mode, where every call is the local principal. */
export class Authenticator {
  private constructor(
    private readonly keys: ApiKeyStore | undefined,
    private readonly jwt: JwtVerifier | undefined,
    private readonly mtls: Map<string, Role[]> | undefined,
  ) {}

  /** @throws AuthConfigError when a configured source cannot be loaded. */
  static create(options: AuthenticatorOptions = {}): Authenticator {
    const keys = options.apiKeysPath ? ApiKeyStore.load(options.apiKeysPath, options.apiKeys) : undefined;
    const jwt = options.jwt ? JwtVerifier.create(options.jwt) : undefined;
    const mtls = options.mtlsSubjectsPath ? loadSubjects(options.mtlsSubjectsPath) : undefined;
    return new Authenticator(keys, jwt, mtls);
  }

  /** The local-mode authenticator: no checks, every call is {@link LOCAL_PRINCIPAL}. */
  static disabled(): Authenticator {
    return new Authenticator(undefined, undefined, undefined);
  }

  /** True when at least one credential type is configured. */
  get enabled(): boolean {
    return Boolean(this.keys || this.jwt || this.mtls);
  }

  /** Which credential types are accepted, for logs and error messages. */
  get methods(): string[] {
    return [this.keys && 'API key', this.jwt && 'JWT', this.mtls && 'mTLS client certificate'].filter((m): m is string => Boolean(m));
  }

  /**
   * The principal of a call. Synchronous results for API keys and cached JWTs keep the hot path cheap.
   * @throws ToolHubError unauthenticated
   */
  authenticate(creds: Credentials): Principal | Promise<Principal> {
    if (!this.enabled) return LOCAL_PRINCIPAL;
    const bearer = creds.authorization?.match(/^\s*Bearer\s+(\S+)\s*$/i)?.[1];
    const token = bearer ?? creds.apiKey?.trim();
    if (token) {
      if (this.jwt && JWT_SHAPE.test(token)) return this.jwt.cached(token) ?? this.jwt.verify(token);
      if (this.keys) return this.keys.authenticate(token);
      throw unauthenticated(`This server does not accept that kind of credential; it accepts: ${this.methods.join(', ')}.`);
    }
    if (this.mtls && creds.certificateSubject) {
      const roles = this.mtls.get(creds.certificateSubject);
      if (roles) return { id: `mtls:${creds.certificateSubject}`, roles, method: 'mtls' };
      throw unauthenticated(`The client certificate "${creds.certificateSubject}" is not mapped to a ToolHub identity; ask an operator to add it.`);
    }
    throw unauthenticated(`Credentials required: send "authorization: Bearer <token>" metadata (accepted: ${this.methods.join(', ')}).`);
  }

  /**
   * Who may call, without secrets: the accepted credential types, every principal the
   * configuration names (API keys, mTLS subjects) with its roles, and what a JWT must carry (JWT
   * principals are whoever the issuer signs, so they are not listed).
   */
  describe(): AccessDescription {
    const principals: KnownPrincipal[] = [...(this.keys?.list() ?? [])];
    for (const [cn, roles] of this.mtls ?? []) principals.push({ id: `mtls:${cn}`, roles: [...roles], method: 'mtls', revoked: false });
    return { localMode: !this.enabled, methods: this.methods, principals, ...(this.jwt ? { jwt: this.jwt.requirements } : {}) };
  }

  /** The principal the configuration names `id` (`key:<name>`, `mtls:<CN>`), if any. */
  known(id: string): KnownPrincipal | undefined {
    return this.describe().principals.find((p) => p.id === id);
  }

  close(): void {
    this.keys?.close();
    this.jwt?.close();
  }
}

/** See {@link Authenticator.describe}. */
export interface AccessDescription {
  /** No credentials configured: every call is the local admin (loopback only). */
  localMode: boolean;
  methods: string[];
  principals: KnownPrincipal[];
  jwt?: { issuer: string; audience: string; rolesClaim: string; defaultRoles: string[] };
}

function loadSubjects(path: string): Map<string, Role[]> {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new AuthConfigError('bad_tls_config', `cannot read mTLS subjects from ${path}: ${(err as Error).message}`, { cause: err });
  }
  const map = new Map<string, Role[]>();
  for (const [cn, roles] of Object.entries(doc)) {
    if (!Array.isArray(roles) || !roles.every(isRole)) throw new AuthConfigError('bad_tls_config', `${path}: "${cn}" must map to a list of roles (agent, operator, admin)`);
    map.set(cn, roles);
  }
  return map;
}
