/**
 * JWT bearer tokens checked with `jose` against a configured issuer, audience and JWKS (a file,
 * re-read when it changes, or an HTTPS URL, fetched and cached by jose). Roles come from a claim.
 */
import { readFileSync } from 'node:fs';

import { createLocalJWKSet, createRemoteJWKSet, errors as joseErrors, type JWTVerifyGetKey, jwtVerify } from 'jose';

import { AuthConfigError, unauthenticated } from './errors';
import { isRole, type Principal, type Role } from './principal';

export interface JwtOptions {
  /** Required `iss`. */
  issuer: string;
  /** Required `aud` (one of, when the token has several). */
  audience: string;
  /** JWKS: a file path (re-read every `reloadIntervalMs` when it changed) or an http(s) URL. */
  jwks: string;
  /** Claim holding the roles: an array or a space-separated string. @default 'roles' */
  rolesClaim?: string;
  /** Roles when the claim is absent. @default ['agent'] */
  defaultRoles?: Role[];
  /** Accepted clock skew, seconds. @default 30 */
  clockToleranceSec?: number;
  /**
   * Oldest accepted token, seconds since its `iat` (so a token minted with a far `exp` still dies);
   * `iat` is then required, and one further ahead than the clock tolerance is refused. @default 86400
   */
  maxAgeSec?: number;
  /** @default 2000 */
  reloadIntervalMs?: number;
  /**
   * Verified tokens are remembered (until they expire, at most this long) so a busy agent's
   * repeated token costs one signature check, not one per call. @default 60000
   */
  cacheMs?: number;
}

interface Cached {
  principal: Principal;
  until: number;
}

const MAX_CACHED = 10_000;

/** Default of {@link JwtOptions.maxAgeSec}: 24 h. */
export const DEFAULT_MAX_AGE_SEC = 86_400;

/**
 * A maximum token age from the environment: seconds (`3600`) or a number with s, m, h or d (`30m`, `24h`, `7d`).
 * @throws AuthConfigError naming TOOLHUB_AUTH_JWT_MAX_AGE when it is neither, or zero
 */
export function parseMaxAge(text: string): number {
  const m = /^\s*(\d{1,9})\s*([smhd]?)\s*$/.exec(text);
  const sec = m ? Number(m[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'] : 0;
  if (!(sec > 0)) throw new AuthConfigError('bad_jwt_config', `TOOLHUB_AUTH_JWT_MAX_AGE must be a positive number of seconds or a number with s, m, h or d (e.g. 24h); got ${JSON.stringify(text)}.`);
  return sec;
}

/** Verifies bearer JWTs. Create with {@link JwtVerifier.create}; `close()` stops the file watch. */
export class JwtVerifier {
  private keys: JWTVerifyGetKey;
  private jwksText = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly cache = new Map<string, Cached>();

  private constructor(private readonly options: Required<JwtOptions>) {
    this.keys = this.loadKeys();
  }

  /** What a token must carry to be accepted (no key material): for operators. */
  get requirements(): { issuer: string; audience: string; rolesClaim: string; defaultRoles: string[] } {
    const o = this.options;
    return { issuer: o.issuer, audience: o.audience, rolesClaim: o.rolesClaim, defaultRoles: [...o.defaultRoles] };
  }

  /** @throws AuthConfigError when issuer, audience or JWKS are missing or the JWKS file is malformed. */
  static create(options: JwtOptions): JwtVerifier {
    for (const field of ['issuer', 'audience', 'jwks'] as const) {
      if (!options[field]) throw new AuthConfigError('bad_jwt_config', `JWT auth needs ${field} (TOOLHUB_AUTH_JWT_${field.toUpperCase()}).`);
    }
    const v = new JwtVerifier({ rolesClaim: 'roles', defaultRoles: ['agent'], clockToleranceSec: 30, maxAgeSec: DEFAULT_MAX_AGE_SEC, reloadIntervalMs: 2000, cacheMs: 60_000, ...options });
    if (!/^https?:\/\//.test(options.jwks)) {
      v.timer = setInterval(() => {
        try {
          v.keys = v.loadKeys();
          v.cache.clear(); // a rotated-out key must stop working at once
        } catch {
          // keep the previous keys; a half-written file must not lock everyone out
        }
      }, v.options.reloadIntervalMs);
      v.timer.unref();
    }
    return v;
  }

  /**
   * The principal of `token` (`jwt:<iss>#<sub>`).
   * @throws ToolHubError unauthenticated: expired, not yet valid, wrong issuer/audience, bad signature, malformed
   */
  async verify(token: string): Promise<Principal> {
    const now = Date.now();
    const hit = this.cached(token);
    if (hit) return hit;
    const o = this.options;
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        issuer: o.issuer,
        audience: o.audience,
        clockTolerance: o.clockToleranceSec,
        // A token without exp would be good forever; maxTokenAge also requires iat and refuses one in the future.
        requiredClaims: ['exp'],
        maxTokenAge: o.maxAgeSec,
      }));
    } catch (err) {
      throw unauthenticated(describe(err, o), err);
    }
    if (!payload.sub) throw unauthenticated('The JWT has no "sub" claim; ToolHub needs a subject to know who is calling.');
    const principal: Principal = { id: `jwt:${payload.iss ?? o.issuer}#${payload.sub}`, roles: rolesOf(payload[o.rolesClaim], o.defaultRoles), method: 'jwt' };
    // exp and iat are checked numbers here (jose required them); the cache must not outlive either limit.
    const until = Math.min((payload.exp as number) * 1000, ((payload.iat as number) + o.maxAgeSec) * 1000, now + o.cacheMs);
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
    this.cache.set(token, { principal, until });
    return principal;
  }

  /** The principal of a token verified recently and not expired since, without a promise (the per-call fast path). */
  cached(token: string): Principal | undefined {
    const hit = this.cache.get(token);
    return hit && hit.until > Date.now() ? hit.principal : undefined;
  }

  close(): void {
    clearInterval(this.timer);
  }

  private loadKeys(): JWTVerifyGetKey {
    const src = this.options.jwks;
    if (/^https?:\/\//.test(src)) return createRemoteJWKSet(new URL(src));
    let text: string;
    try {
      text = readFileSync(src, 'utf8');
    } catch (err) {
      throw new AuthConfigError('bad_jwt_config', `cannot read the JWKS file ${src}: ${(err as Error).message}`, { cause: err });
    }
    if (text === this.jwksText) return this.keys;
    try {
      const keys = createLocalJWKSet(JSON.parse(text));
      this.jwksText = text;
      return keys;
    } catch (err) {
      throw new AuthConfigError('bad_jwt_config', `${src} is not a JWKS ({"keys": [...]}): ${(err as Error).message}`, { cause: err });
    }
  }
}

function rolesOf(claim: unknown, fallback: Role[]): Role[] {
  const list = Array.isArray(claim) ? claim : typeof claim === 'string' ? claim.split(/\s+/) : undefined;
  if (!list) return fallback;
  return list.filter(isRole);
}

function describe(err: unknown, o: Required<JwtOptions>): string {
  if (err instanceof joseErrors.JWTExpired) {
    if (err.claim === 'iat') return `The JWT was issued more than ${o.maxAgeSec} s ago (its "iat"); ToolHub refuses tokens older than that (TOOLHUB_AUTH_JWT_MAX_AGE) whatever their "exp". Get a new token and retry.`;
    return 'The JWT has expired; get a new token and retry.';
  }
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.reason === 'missing' && err.claim === 'exp') return 'The JWT has no "exp" claim; ToolHub accepts only tokens with an expiry. Ask the identity provider for a token with "exp".';
    if (err.reason === 'missing' && err.claim === 'iat') return 'The JWT has no "iat" claim; ToolHub needs the issue time to enforce the maximum token age (TOOLHUB_AUTH_JWT_MAX_AGE).';
    if (err.claim === 'iat') return `The JWT's "iat" is in the future (beyond the ${o.clockToleranceSec} s clock tolerance); check the identity provider's clock.`;
    if (err.claim === 'aud') return `The JWT is for another audience; ToolHub accepts tokens with aud "${o.audience}".`;
    if (err.claim === 'iss') return `The JWT was issued by someone ToolHub does not trust; it accepts iss "${o.issuer}".`;
    if (err.claim === 'nbf') return 'The JWT is not valid yet (nbf is in the future).';
    return `The JWT claim "${err.claim}" is not acceptable: ${err.reason}.`;
  }
  if (err instanceof joseErrors.JWKSNoMatchingKey || err instanceof joseErrors.JWSSignatureVerificationFailed) return 'The JWT signature does not match any key ToolHub trusts.';
  if (err instanceof joseErrors.JWKSTimeout || err instanceof joseErrors.JOSEError && err.code === 'ERR_JWKS_INVALID') return 'ToolHub could not load its signing keys to check the JWT; retry shortly.';
  return 'The bearer token is not a valid JWT.';
}
