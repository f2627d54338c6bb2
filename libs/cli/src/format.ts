/** Small text helpers for the human output, and the one JSON serialiser of `--json`. */

/** `text` on one line, cut to `max` characters with "…". */
export function oneLine(text: string, max = Number.POSITIVE_INFINITY): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** Milliseconds for people: `16 ms`, `1.2 s`; `-` for none. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '-';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

/** A 0..1 ratio as `66.7%`. */
export function formatPercent(ratio: number): string {
  return `${(Math.round(ratio * 1000) / 10).toString()}%`;
}

/** How long ago `unixMs` was: `just now`, `5 min ago`, `3 h ago`, `2 d ago`; `never` for 0. */
export function formatAgo(unixMs: number, now: number): string {
  if (!unixMs) return 'never';
  const s = Math.max(0, Math.round((now - unixMs) / 1000));
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.max(1, Math.round(s / 60))} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} d ago`;
}

/** Wraps `text` at `width` columns, keeping its paragraphs; every line gets `indent`. */
export function wrap(text: string, width: number, indent = ''): string {
  const out: string[] = [];
  for (const paragraph of text.trim().split(/\n\s*\n/)) {
    if (out.length) out.push('');
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line && indent.length + line.length + 1 + word.length > width) {
        out.push(indent + line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    if (line) out.push(indent + line);
  }
  return out.join('\n');
}

/**
 * The one JSON document of `--json`, pretty-printed, ending in a newline. Bytes (images, blobs)
 * become base64 strings, as in the protobuf JSON mapping.
 */
export function jsonDocument(value: unknown): string {
  // `this[key]` is the value before Buffer#toJSON turned it into {type, data}.
  function replacer(this: Record<string, unknown>, key: string, v: unknown): unknown {
    const raw = this[key];
    if (raw instanceof Uint8Array) return Buffer.from(raw).toString('base64');
    return typeof v === 'bigint' ? v.toString() : v;
  }
  return `${JSON.stringify(value, replacer, 2)}\n`;
}
