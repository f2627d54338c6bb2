/** When a failed attempt may be repeated, and how long to wait first. */
import type { ToolHubError, ToolInfo } from '@toolhub/contracts';

/**
 * Repeating a call is safe when the tool says it is idempotent or read-only, or when the caller
 * sent an idempotency key (the adapter then returns the first result instead of running again).
 */
export function isRetrySafe(info: ToolInfo | undefined, idempotencyKey: string): boolean {
  return Boolean(idempotencyKey) || info?.annotations?.idempotent === true || info?.annotations?.readOnly === true;
}

/** Codes worth another attempt at the same tool: the failure was about reaching it, not the call. */
export function isRetryableCode(err: ToolHubError): boolean {
  return err.code === 'unavailable' || err.code === 'rate_limited';
}

/** Codes after which the next tool of the fallback chain is tried. */
export function triggersFallback(err: ToolHubError): boolean {
  return err.code === 'unavailable' || err.code === 'timeout' || err.code === 'failed';
}

/** Exponential backoff with full jitter (AWS architecture blog), honouring a server's retry-after. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, retryAfterMs = 0, random = Math.random): number {
  const cap = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.max(retryAfterMs, Math.round(cap * (0.5 + random() * 0.5)));
}
