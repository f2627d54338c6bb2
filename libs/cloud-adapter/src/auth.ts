/**
 * Credentials: read from the environment variables the configuration names, once at start-up, and
 * applied to each request. Never taken from the OpenAPI document, never logged, never echoed.
 */
import type { AuthConfig, CloudDocumentConfig } from './config';
import { formatPath } from './config';
import type { CloudConfigIssue } from './errors';

/** Where a credential goes on the request. */
export interface ResolvedAuth {
  /** Headers to set (lowercase names). */
  readonly headers: Readonly<Record<string, string>>;
  /** Query parameters to add. */
  readonly query: Readonly<Record<string, string>>;
  /** Every secret value, for redaction. */
  readonly secrets: readonly string[];
  /** Header and query names carrying credentials: dropped when a redirect leaves the origin. */
  readonly headerNames: readonly string[];
  readonly queryNames: readonly string[];
}

export const NO_AUTH: ResolvedAuth = { headers: {}, query: {}, secrets: [], headerNames: [], queryNames: [] };

/**
 * Reads a document's credentials from `env`. An unset or empty variable is an issue naming the
 * field and the variable (never a value).
 */
export function resolveAuth(doc: CloudDocumentConfig, index: number, env: Record<string, string | undefined>, issues: CloudConfigIssue[]): ResolvedAuth {
  const auth: AuthConfig | undefined = doc.auth;
  if (!auth) return NO_AUTH;
  const read = (field: string, name: string): string => {
    const v = env[name];
    if (v === undefined || v === '') {
      issues.push({ path: formatPath(['documents', index, 'auth', field]), message: `environment variable ${name} is not set (document ${JSON.stringify(doc.alias)} needs it for ${auth.type} auth)` });
      return '';
    }
    if (/[\r\n]/.test(v)) issues.push({ path: formatPath(['documents', index, 'auth', field]), message: `environment variable ${name} contains a line break` });
    return v;
  };
  switch (auth.type) {
    case 'bearer': {
      const token = read('tokenEnv', auth.tokenEnv);
      return { headers: { authorization: `Bearer ${token}` }, query: {}, secrets: [token], headerNames: ['authorization'], queryNames: [] };
    }
    case 'basic': {
      const user = read('usernameEnv', auth.usernameEnv);
      const password = read('passwordEnv', auth.passwordEnv);
      const encoded = Buffer.from(`${user}:${password}`).toString('base64');
      return { headers: { authorization: `Basic ${encoded}` }, query: {}, secrets: [password, encoded], headerNames: ['authorization'], queryNames: [] };
    }
    case 'apiKey': {
      const key = read('valueEnv', auth.valueEnv);
      if (auth.in === 'header') {
        const name = auth.name.toLowerCase();
        return { headers: { [name]: key }, query: {}, secrets: [key], headerNames: [name], queryNames: [] };
      }
      return { headers: {}, query: { [auth.name]: key }, secrets: [key], headerNames: [], queryNames: [auth.name] };
    }
  }
}
