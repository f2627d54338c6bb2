/**
 * HTTP responses → what the agent sees: a successful body as JSON or text (cut bodies say so), and
 * a failed one as a ToolHubError naming the status with a short excerpt of the body. Everything
 * passes through the redactor first.
 */
import type { ToolResult } from '@toolhub/adapter-sdk';
import { type ContentBlock, ToolHubError } from '@toolhub/contracts';

import type { HttpResponse } from './http';
import type { SecretRedactor as Redactor } from '@toolhub/config';

const EXCERPT_CHARS = 300;
/** JSON bodies up to this size are pretty-printed. */
const PRETTY_MAX_BYTES = 16 * 1024;
/** JSON bodies up to this size are also returned as `structured`. */
const STRUCTURED_MAX_BYTES = 256 * 1024;

/** True for media types shown as text. */
function isTextual(type: string): boolean {
  return /^text\/|[/+](?:json|xml|yaml|x-yaml|javascript|x-www-form-urlencoded|csv)\b|^application\/(?:problem|graphql)/i.test(type);
}

function isJson(type: string): boolean {
  const t = type.split(';')[0]!.trim().toLowerCase();
  return t === 'application/json' || t.endsWith('+json');
}

/** The note appended to a cut body, so the agent knows the data is incomplete. */
export function truncationNote(maxBytes: number): string {
  return `[Truncated: the response was larger than ${maxBytes} bytes, so only the first ${maxBytes} bytes are shown and it may end mid-value. Narrow the request (a filter, a smaller limit or page size) to get complete data.]`;
}

/** A successful response as a tool result. */
export function toToolResult(res: HttpResponse, maxBytes: number, redactor: Redactor): ToolResult {
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (res.body.length === 0) {
    return { content: [{ text: `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''} (no response body).` }], structured: { status: res.status } };
  }
  if (res.truncated) {
    const head = isTextual(type) || type === '' ? redactor.redact(res.body.toString('utf8')) : `(${type} data, not shown)`;
    return { content: [{ text: `${head}\n\n${truncationNote(maxBytes)}` }] };
  }
  if (isJson(type) || (type === '' && /^\s*[[{]/.test(res.body.toString('utf8', 0, 64)))) {
    try {
      const value = redactor.redactJson(JSON.parse(res.body.toString('utf8')));
      // Small bodies pretty-printed for reading; large ones compact, and without the structured
      // copy, so text plus structured stay well inside one bus message (1 MiB by default).
      if (res.body.length > STRUCTURED_MAX_BYTES) return { content: [{ text: JSON.stringify(value) }] };
      return { content: [{ text: JSON.stringify(value, null, res.body.length > PRETTY_MAX_BYTES ? undefined : 2) }], structured: value };
    } catch {
      // Declared JSON but is not: show it as text.
    }
  }
  if (isTextual(type) || type === '') return { content: [{ text: redactor.redact(res.body.toString('utf8')) }] };
  const blocks: ContentBlock[] = [{ text: `HTTP ${res.status}: ${type} data, ${res.body.length} bytes.` }];
  if (type.startsWith('image/')) blocks.push({ image: { mimeType: type, data: res.body } });
  else if (type.startsWith('audio/')) blocks.push({ audio: { mimeType: type, data: res.body } });
  else blocks.push({ resource: { uri: `${res.url.origin}${res.url.pathname}`, mimeType: type, text: '', blob: res.body } });
  return { content: blocks };
}

/** A short, single-line excerpt of a body, redacted. */
export function bodyExcerpt(res: HttpResponse, redactor: Redactor, max = EXCERPT_CHARS): string {
  if (res.body.length === 0) return '';
  const type = (res.headers.get('content-type') ?? '').toLowerCase();
  if (type !== '' && !isTextual(type)) return `(${type.split(';')[0]} body, ${res.body.length} bytes)`;
  const text = redactor.redact(res.body.toString('utf8', 0, Math.min(res.body.length, max * 4)).replace(/\s+/g, ' ').trim());
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

/** What the agent should do about a failed status. */
function hintFor(status: number): string {
  if (status === 400 || status === 422) return 'The API rejected the arguments; check them against tool_info and retry with corrected values.';
  if (status === 401 || status === 403) return 'The API refused the configured credentials or this operation; an operator has to fix the configuration, retrying will not help.';
  if (status === 404) return 'The API found nothing at that address; check identifiers in the arguments.';
  if (status === 409) return 'The request conflicts with the current state of the resource.';
  if (status >= 500) return 'The API failed on its side; retrying later may help.';
  return 'See the excerpt of the response for details.';
}

/** A non-2xx status (other than 429/503 being retried) as a `failed` error with status and excerpt. */
export function httpFailure(tool: string, method: string, res: HttpResponse, redactor: Redactor): ToolHubError {
  const excerpt = bodyExcerpt(res, redactor);
  return new ToolHubError(
    'failed',
    `${tool}: ${method} ${res.url.pathname} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${excerpt ? ` — ${excerpt}` : ''}. ${hintFor(res.status)}`,
    { retryable: res.status >= 500 },
  );
}

/** 429 or 503 that could not be retried within the deadline (or the retries ran out). */
export function retryExhausted(tool: string, method: string, res: HttpResponse, attempts: number, waitMs: number | undefined, why: string, redactor: Redactor): ToolHubError {
  const excerpt = bodyExcerpt(res, redactor, 160);
  const limited = res.status === 429;
  const after = waitMs !== undefined ? ` The API asks to wait ${Math.ceil(waitMs / 1000)} s.` : '';
  return new ToolHubError(
    limited ? 'rate_limited' : 'unavailable',
    `${tool}: ${method} ${res.url.pathname} answered HTTP ${res.status} ${limited ? '(rate limited)' : '(service unavailable)'} after ${attempts} attempt${attempts === 1 ? '' : 's'}; ${why}.${after}${excerpt ? ` Response: ${excerpt}` : ''} Retry later${waitMs !== undefined ? ` (after ${Math.ceil(waitMs / 1000)} s)` : ''}, or with a larger timeout_ms.`,
    { retryable: true, retryAfterMs: waitMs ?? 0 },
  );
}
