/**
 * Keeps credentials out of everything the adapter says: their values (and the encoded forms that
 * travel on the wire) are replaced by `[REDACTED]` in error messages, body excerpts, log lines and
 * results. ToolInfo never contains them in the first place: it is built from the document only.
 */
import { REDACTED } from '@toolhub/config';

/** Shorter values are too likely to be ordinary words or numbers to be worth hiding. */
const MIN_SECRET_LENGTH = 4;

/** Replaces known secret values in text and in JSON values. */
export class Redactor {
  private readonly secrets: string[];

  constructor(values: Iterable<string>) {
    const set = new Set<string>();
    for (const v of values) {
      for (const c of [v, encodeURIComponent(v), Buffer.from(v).toString('base64')]) if (c.length >= MIN_SECRET_LENGTH) set.add(c);
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.secrets = [...set].sort((a, b) => b.length - a.length);
  }

  /** True when there is nothing to hide. */
  get empty(): boolean {
    return this.secrets.length === 0;
  }

  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
    return out;
  }

  /** A copy of a JSON value with every string redacted (keys included). */
  redactJson(value: unknown): unknown {
    if (this.secrets.length === 0) return value;
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) return value.map((v) => this.redactJson(v));
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.redact(k), this.redactJson(v)]));
    return value;
  }

  /** The message of anything thrown, redacted. */
  message(err: unknown): string {
    return this.redact(err instanceof Error ? err.message : String(err));
  }
}
