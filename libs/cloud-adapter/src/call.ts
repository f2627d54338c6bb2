/**
 * One run of one operation: map the agent's arguments back to native names, build the request, add
 * credentials, send it within the caller's deadline, retry 429/503 as `Retry-After` says when that
 * fits, poll a `202 Accepted` + `Location` to completion (long-running.ts), and turn the answer into
 * a result or an error an LLM can act on.
 */
import type { RunContext, ToolResult } from '@toolhub/adapter-sdk';
import { findToolHubError, ToolHubError } from '@toolhub/contracts';

import type { ResolvedAuth } from './auth';
import type { SafeHttpClient } from './http';
import type { CloudLogger } from './logger';
import type { OperationEntry } from './operations';
import { isAccepted, pollToCompletion } from './long-running';
import { buildRequest } from './request';
import { httpFailure, retryExhausted, toToolResult } from './response';
import { backoffMs, parseRetryAfter, sleep } from './retry';
import type { SecretRedactor as Redactor } from '@toolhub/config';

/** Everything a run needs about its document. */
export interface DocumentRuntime {
  readonly alias: string;
  readonly client: SafeHttpClient;
  readonly auth: ResolvedAuth;
  readonly redactor: Redactor;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly maxRequestBytes: number;
  readonly maxResponseBytes: number;
  readonly logger: CloudLogger;
}

/** A retry is only started when at least this much time would be left after the wait. */
const RETRY_MARGIN_MS = 100;

/**
 * Runs one operation.
 * @throws ToolHubError invalid_argument (arguments), permission_denied (a refused host or address),
 *   timeout (the deadline passed), rate_limited / unavailable (429 / 503 not recoverable in time,
 *   unreachable API), failed (any other non-2xx status, with the status and a body excerpt).
 */
export async function runOperation(entry: OperationEntry, base: URL, args: Record<string, unknown>, ctx: RunContext, rt: DocumentRuntime): Promise<ToolResult> {
  const native = entry.names.toNative(args);
  const toAgent = (key: string): string => (entry.names.identity ? key : (Object.keys(entry.names.fromNative({ [key]: null }))[0] ?? key));
  const built = buildRequest(entry, base, native, rt.maxRequestBytes, toAgent);
  const headers: Record<string, string> = { accept: 'application/json, */*;q=0.5', 'user-agent': 'toolhub-cloud-adapter/0.1', ...built.headers, ...rt.auth.headers };
  const url = new URL(built.url);
  // Credentials win over a same-named parameter: the document cannot redirect them.
  for (const [k, v] of Object.entries(rt.auth.query)) url.searchParams.set(k, v);

  const started = Date.now();
  const deadline = Math.min(ctx.deadline, started + rt.timeoutMs);
  const budget = Math.max(0, deadline - started);
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(Math.max(1, budget))]);
  const tool = entry.info.name;
  const timeout = (cause?: unknown): ToolHubError =>
    new ToolHubError('timeout', `${tool}: ${built.method} ${url.pathname} on ${url.host} did not finish within ${budget} ms and was cancelled. Retry with a larger timeout_ms, or ask for less data.`, { cause });

  try {
    for (let attempt = 0; ; attempt++) {
      const res = await rt.client.send({ method: built.method, url, headers, body: built.body }, signal);
      if (isAccepted(res)) {
        return await pollToCompletion(res, { tool, method: built.method, client: rt.client, headers, credentialHeaders: rt.auth.headerNames, credentialQuery: rt.auth.query, deadline, signal, maxResponseBytes: rt.maxResponseBytes, redactor: rt.redactor, ctx });
      }
      if (res.status >= 200 && res.status < 300) return toToolResult(res, rt.maxResponseBytes, rt.redactor);
      if (res.status !== 429 && res.status !== 503) throw httpFailure(tool, built.method, res, rt.redactor);
      const asked = parseRetryAfter(res.headers.get('retry-after'));
      const wait = asked ?? backoffMs(attempt);
      const left = deadline - Date.now();
      if (attempt >= rt.retries) throw retryExhausted(tool, built.method, res, attempt + 1, asked, `the ${rt.retries} retr${rt.retries === 1 ? 'y' : 'ies'} allowed were used`, rt.redactor);
      if (wait + RETRY_MARGIN_MS > left) throw retryExhausted(tool, built.method, res, attempt + 1, asked ?? wait, `waiting ${wait} ms would pass the call's deadline (${Math.max(0, left)} ms left)`, rt.redactor);
      rt.logger.debug?.({ alias: rt.alias, tool, status: res.status, attempt: attempt + 1, waitMs: wait }, 'retrying after HTTP 429/503');
      await sleep(wait, signal);
    }
  } catch (err) {
    if (signal.aborted && !findToolHubError(err)) throw timeout(err);
    if (err instanceof ToolHubError) throw redacted(err, rt.redactor);
    if (signal.aborted) throw timeout(err);
    throw ToolHubError.internal(`${tool}: unexpected failure: ${rt.redactor.message(err)}`, err);
  }
}

/** The same error with secrets removed from its message (errors here are built from redacted parts already; this is the backstop). */
function redacted(err: ToolHubError, redactor: Redactor): ToolHubError {
  const message = redactor.redact(err.message);
  if (message === err.message) return err;
  return new ToolHubError(err.code, message, { violations: err.violations, suggestions: err.suggestions, parentPath: err.parentPath, fixes: err.fixes, retryable: err.retryable, retryAfterMs: err.retryAfterMs });
}
