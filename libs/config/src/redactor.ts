/**
 * The one secret redactor of ToolHub: every adapter builds it from the secret values it was
 * configured with (an MCP server's env and headers, a cloud document's credentials) and passes
 * everything it says through it — successful results, errors, log fields, status and quarantine
 * reasons. Values are matched as given and in the forms they travel in (URL-encoded, base64, and
 * each whitespace-separated word of a value such as `Bearer <token>`).
 */
import { REDACTED } from './fields';

/** Shorter values are too likely to be ordinary words or numbers to be worth hiding. */
const MIN_SECRET_LENGTH = 4;
const NOT_SECRET = new Set(['true', 'false', 'null', 'none', 'bearer', 'basic']);

/** Replaces known secret values in text and in JSON values. */
export class SecretRedactor {
  private readonly secrets: readonly string[];

  constructor(values: Iterable<string>) {
    const set = new Set<string>();
    for (const v of values) {
      if (typeof v !== 'string') continue;
      for (const part of [v, ...v.split(/\s+/)]) {
        if (part.length < MIN_SECRET_LENGTH || NOT_SECRET.has(part.toLowerCase())) continue;
        for (const form of [part, encodeURIComponent(part), Buffer.from(part).toString('base64')]) set.add(form);
      }
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.secrets = [...set].sort((a, b) => b.length - a.length);
  }

  /** True when there is nothing to hide (redaction is then free). */
  get empty(): boolean {
    return this.secrets.length === 0;
  }

  /** `text` with every known secret replaced by `[REDACTED]`. */
  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
    return out;
  }

  /** A copy of a JSON value with every string redacted (keys included); the value itself when nothing is secret. */
  redactJson<T>(value: T): T {
    if (this.secrets.length === 0) return value;
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) return value.map((v) => this.walk(v));
    if (typeof value === 'object' && value !== null && !(value instanceof Uint8Array)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.redact(k), this.walk(v)]));
    }
    return value;
  }

  /** The message of anything thrown, redacted. */
  message(err: unknown): string {
    return this.redact(err instanceof Error ? err.message : String(err));
  }
}
