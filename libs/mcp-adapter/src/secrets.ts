/**
 * Keeps secrets out of everything the adapter says: values of `env` (stdio) and `headers` (HTTP),
 * and credentials or query values in server URLs, are replaced by `[REDACTED]` in error messages,
 * log lines, stderr excerpts and error results. ToolInfo and catalog events never contain them in
 * the first place: they are built from tool metadata only.
 */
import { REDACTED } from '@toolhub/config';

import type { McpServerConfig } from './config';

/** Shorter values are too likely to be ordinary words or numbers to be worth hiding. */
const MIN_SECRET_LENGTH = 4;
const NOT_SECRET = new Set(['true', 'false', 'null', 'none']);

/** Replaces known secret values in text. */
export class Redactor {
  private readonly secrets: string[];

  constructor(values: Iterable<string>) {
    const set = new Set<string>();
    for (const v of values) {
      const candidates = [v, ...v.split(/\s+/)];
      for (const c of candidates) if (c.length >= MIN_SECRET_LENGTH && !NOT_SECRET.has(c.toLowerCase())) set.add(c);
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.secrets = [...set].sort((a, b) => b.length - a.length);
  }

  /** Every secret of every configured server. */
  static forServers(servers: readonly McpServerConfig[]): Redactor {
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
        for (const v of url.searchParams.values()) values.push(v, encodeURIComponent(v));
      }
    }
    return new Redactor(values);
  }

  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
    return out;
  }

  /** The message of anything thrown, redacted. */
  message(err: unknown): string {
    return this.redact(err instanceof Error ? err.message : String(err));
  }
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
