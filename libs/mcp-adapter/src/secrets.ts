/**
 * Keeps secrets out of everything the adapter says: values of `env` (stdio) and `headers` (HTTP),
 * and credentials or query values in server URLs, are replaced by `[REDACTED]` in error messages,
 * log lines, stderr excerpts and every result (successful or not), by the one SecretRedactor of
 * @toolhub/config. ToolInfo and catalog events never contain them in
 * the first place: they are built from tool metadata only.
 */
import { SecretRedactor } from '@toolhub/config';

import type { McpServerConfig } from './config';

/** Every secret of every configured server: stdio env values, HTTP headers, URL credentials and query values. */
export function redactorForServers(servers: readonly McpServerConfig[]): SecretRedactor {
  const values: string[] = [];
  for (const s of servers) {
    const t = s.transport;
    if (t.type === 'stdio') {
      values.push(...Object.values(t.env));
    } else {
      values.push(...Object.values(t.headers));
      const url = new URL(t.url);
      if (url.password) values.push(url.password, decodeURIComponent(url.password));
      if (url.username) values.push(url.username, decodeURIComponent(url.username));
      for (const v of url.searchParams.values()) values.push(v);
    }
  }
  return new SecretRedactor(values);
}

/** Where an HTTP server lives, for logs and errors: scheme, host and port only. */
export function endpointOf(server: McpServerConfig): string {
  const t = server.transport;
  if (t.type === 'stdio') return 'stdio';
  try {
    return new URL(t.url).origin;
  } catch {
    return t.type;
  }
}
