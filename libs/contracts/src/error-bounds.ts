/**
 * Bounds the size of the errors ToolHub sends: over gRPC (grpc-edge's toGrpcError) and over the bus
 * (adapter replies). Error messages and details may quote what the caller sent (a 3 MB "provider
 * name", an oversized argument). gRPC carries them in trailers, and HTTP/2 peers refuse header lists
 * past about 64 KiB (Node's default): grpc-js then neither delivers the status nor keeps the
 * connection, so the call hangs until its deadline and every other call on the connection drops.
 * On the bus, a reply past the payload limit is replaced by a bare "too large" error.
 */
import { ToolHubError, toToolHubError } from './errors';
import type { AppliedFix, FieldViolation } from './gen/toolhub/v1/errors';

/** Longest error message, in characters (UTF-16 units). */
export const MAX_ERROR_MESSAGE_CHARS = 2000;
const MAX_DETAIL_CHARS = 300;
const MAX_ITEMS = 20;

/** Cuts `text` to `max` characters, saying how much was left out. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = ` … (${text.length - max} more characters cut)`;
  let end = Math.max(0, max - note.length);
  // Do not split a surrogate pair.
  if (end > 0 && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
  return text.slice(0, end) + note;
}

function clipViolation(v: FieldViolation): FieldViolation {
  return { field: clip(v.field, MAX_DETAIL_CHARS), message: clip(v.message, MAX_DETAIL_CHARS), expected: clip(v.expected, MAX_DETAIL_CHARS), example: clip(v.example, MAX_DETAIL_CHARS) };
}

function clipFix(f: AppliedFix): AppliedFix {
  return { field: clip(f.field, MAX_DETAIL_CHARS), description: clip(f.description, MAX_DETAIL_CHARS) };
}

function isSmall(e: ToolHubError): boolean {
  const within = (s: string) => s.length <= MAX_DETAIL_CHARS;
  return (
    e.message.length <= MAX_ERROR_MESSAGE_CHARS &&
    within(e.parentPath) &&
    e.violations.length <= MAX_ITEMS &&
    e.suggestions.length <= MAX_ITEMS &&
    e.fixes.length <= MAX_ITEMS &&
    e.violations.every((v) => within(v.field) && within(v.message) && within(v.expected) && within(v.example)) &&
    e.suggestions.every(within) &&
    e.fixes.every((f) => within(f.field) && within(f.description))
  );
}

/**
 * The error as a ToolHubError whose message and details fit in gRPC trailers (a few KiB at most):
 * the message is cut at {@link MAX_ERROR_MESSAGE_CHARS}, every detail string at 300 characters and
 * each list at 20 entries. Small errors are returned as they are.
 */
export function boundedError(err: unknown): ToolHubError {
  const e = toToolHubError(err);
  if (isSmall(e)) return e;
  const cut = (n: number) => (n > MAX_ITEMS ? ` (${n - MAX_ITEMS} more not shown)` : '');
  const extra = [e.violations.length, e.fixes.length].some((n) => n > MAX_ITEMS) ? `${cut(e.violations.length)}${cut(e.fixes.length)}` : '';
  return new ToolHubError(e.code, clip(e.message, MAX_ERROR_MESSAGE_CHARS - extra.length) + extra, {
    cause: e,
    violations: e.violations.slice(0, MAX_ITEMS).map(clipViolation),
    suggestions: e.suggestions.slice(0, MAX_ITEMS).map((s) => clip(s, MAX_DETAIL_CHARS)),
    parentPath: clip(e.parentPath, MAX_DETAIL_CHARS),
    fixes: e.fixes.slice(0, MAX_ITEMS).map(clipFix),
    retryable: e.retryable,
    retryAfterMs: e.retryAfterMs,
  });
}
