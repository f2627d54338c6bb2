/**
 * HTTP's long-running pattern: an API that answers `202 Accepted` with a `Location` (the status
 * resource) is polled with GET until it stops answering 202 — a 2xx is the result (a `303 See
 * Other` to the result is followed by the HTTP client) — waiting `Retry-After` between polls (1 s
 * without one), all within the call's deadline. Each poll is reported as progress (`ctx.progress`,
 * when the caller listens). A 202 without `Location` is an ordinary answer, as before.
 */
import type { RunContext, ToolResult } from '@toolhub/adapter-sdk';
import { ToolHubError } from '@toolhub/contracts';
import type { SecretRedactor as Redactor } from '@toolhub/config';

import type { HttpResponse, SafeHttpClient } from './http';
import { httpFailure, toToolResult } from './response';
import { parseRetryAfter, sleep } from './retry';

/** Wait between polls when the API sends no Retry-After. */
export const DEFAULT_POLL_MS = 1000;
/** A poll is only started when at least this much time would be left after the wait. */
const POLL_MARGIN_MS = 100;

/** What polling needs of the run. */
export interface PollContext {
  readonly tool: string;
  readonly method: string;
  readonly client: SafeHttpClient;
  /** Headers of the original request; credentials go along only to the same origin. */
  readonly headers: Record<string, string>;
  readonly credentialHeaders: readonly string[];
  /** Query credentials (an API key in the query), added to a status URL of the same origin. */
  readonly credentialQuery: Readonly<Record<string, string>>;
  readonly deadline: number;
  readonly signal: AbortSignal;
  readonly maxResponseBytes: number;
  readonly redactor: Redactor;
  readonly ctx: RunContext;
}

/** Whether `res` starts the long-running pattern (202 with a status URL). */
export function isAccepted(res: HttpResponse): boolean {
  return res.status === 202 && res.headers.get('location') !== null;
}

/**
 * Polls the status resource of an accepted request until it answers something other than 202.
 * @throws ToolHubError timeout (the next poll would pass the deadline; says where the work goes on),
 *   failed (the status resource answered an error status or a Location that is no URL).
 */
export async function pollToCompletion(accepted: HttpResponse, p: PollContext): Promise<ToolResult> {
  let res = accepted;
  let statusUrl = locationOf(res, res.url, p);
  const origin = accepted.url.origin;
  for (let poll = 1; ; poll++) {
    const wait = parseRetryAfter(res.headers.get('retry-after')) ?? DEFAULT_POLL_MS;
    const left = p.deadline - Date.now();
    if (wait + POLL_MARGIN_MS > left) {
      throw ToolHubError.timeout(
        `${p.tool}: the API accepted the request (HTTP 202) and had not finished after ${poll - 1} status check${poll === 2 ? '' : 's'} when the call's deadline came ` +
          `(next check in ${wait} ms, ${Math.max(0, left)} ms left). It may still complete at ${p.redactor.redact(statusUrl.href)}; retry with a larger timeout_ms ` +
          '(a repeated call may start the work again unless the tool is idempotent).',
      );
    }
    p.ctx.progress?.({ progress: poll, message: `${statusLine(res)}; status check ${poll} in ${Math.round(wait / 100) / 10} s` });
    await sleep(wait, p.signal);
    const sameOrigin = statusUrl.origin === origin;
    const headers = sameOrigin ? { ...p.headers } : withoutCredentials(p.headers, p.credentialHeaders);
    delete headers['content-type'];
    const url = new URL(statusUrl);
    if (sameOrigin) for (const [k, v] of Object.entries(p.credentialQuery)) url.searchParams.set(k, v);
    res = await p.client.send({ method: 'GET', url, headers }, p.signal);
    if (res.status === 202) {
      if (res.headers.get('location') !== null) statusUrl = locationOf(res, res.url, p);
      continue;
    }
    if (res.status >= 200 && res.status < 300) return toToolResult(res, p.maxResponseBytes, p.redactor);
    throw httpFailure(p.tool, 'GET (status check)', res, p.redactor);
  }
}

function locationOf(res: HttpResponse, base: URL, p: PollContext): URL {
  try {
    return new URL(res.headers.get('location')!, base);
  } catch (err) {
    throw ToolHubError.failed(`${p.tool}: the API accepted the request (HTTP 202) with a Location that is not a URL; it cannot be followed.`, err);
  }
}

/** "accepted by api.example.com (status running)" from a 202 and its JSON body's `status`, if any. */
function statusLine(res: HttpResponse): string {
  let status = '';
  if (res.body.length > 0 && res.body.length <= 64 * 1024) {
    try {
      const body = JSON.parse(res.body.toString('utf8')) as { status?: unknown; state?: unknown };
      const s = body.status ?? body.state;
      if (typeof s === 'string' && s.length <= 64) status = ` (status ${s})`;
    } catch {
      // not JSON: no status to show
    }
  }
  return `accepted by ${res.url.host}, still running${status}`;
}

function withoutCredentials(headers: Record<string, string>, credential: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !credential.includes(k.toLowerCase()) && k.toLowerCase() !== 'cookie'));
}
