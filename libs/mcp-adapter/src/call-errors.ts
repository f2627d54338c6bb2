/**
 * What a failed MCP call means for the agent: the wire error (timeout, unavailable,
 * invalid_argument, permission_denied, failed) with a message it can act on, and whether the
 * request can have reached the server (which decides if sending it again is safe).
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { findCause, ToolHubError } from '@toolhub/contracts';

import type { SecretRedactor as Redactor } from '@toolhub/config';

/**
 * - `not_delivered`: the request never left (process gone, HTTP session unknown, connection refused);
 * - `connection_lost`: the connection dropped after sending, so the tool may or may not have run;
 * - `aborted` / `timeout`: the deadline passed and the server was sent `notifications/cancelled`.
 */
export type CallErrorKind = 'toolhub' | 'aborted' | 'timeout' | 'connection_lost' | 'not_delivered' | 'auth' | 'server_error' | 'bad_result';

export function classifyCallError(err: unknown, signal?: AbortSignal): CallErrorKind {
  if (err instanceof ToolHubError) return 'toolhub';
  if (signal?.aborted) return 'aborted';
  if (err instanceof McpError) {
    if (err.code === ErrorCode.RequestTimeout) return 'timeout';
    if (err.code === ErrorCode.ConnectionClosed) return 'connection_lost';
    return 'server_error';
  }
  if (err instanceof Error && err.name === 'ZodError') return 'bad_result';
  if (err instanceof StreamableHTTPError) {
    if (err.code === 401 || err.code === 403) return 'auth';
    // 404: the server no longer knows the session (it restarted); the request was not processed.
    return err.code === 404 ? 'not_delivered' : 'connection_lost';
  }
  if (err instanceof Error && err.message === 'Not connected') return 'not_delivered';
  if (err instanceof TypeError && hasCode(err, ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'])) return 'not_delivered';
  return 'connection_lost';
}

function hasCode(err: unknown, codes: string[]): boolean {
  // An AggregateError (fetch's "happy eyeballs") carries the connect errors in `errors`.
  const matches = (cur: unknown): boolean => {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && codes.includes(code)) return true;
    return Array.isArray((cur as { errors?: unknown }).errors) && (cur as { errors: unknown[] }).errors.some((e) => hasCode(e, codes));
  };
  return findCause(err, matches) !== undefined;
}

interface CallErrorContext {
  alias: string;
  name: string;
  elapsedMs: number;
  retrySafe: boolean;
  redactor: Redactor;
}

/** The wire error for a failed call. */
export function callError(err: unknown, kind: CallErrorKind, ctx: CallErrorContext): ToolHubError {
  const server = `MCP server ${JSON.stringify(ctx.alias)}`;
  const detail = ctx.redactor.message(err).replace(/^MCP error -?\d+: /, '');
  switch (kind) {
    case 'toolhub':
      return err as ToolHubError;
    case 'aborted':
    case 'timeout':
      return new ToolHubError(
        'timeout',
        `Tool ${ctx.name} did not finish within ${ctx.elapsedMs} ms and was cancelled (ToolHub sent the ${server} a cancellation). Retry with a larger timeout_ms or smaller input.`,
        { cause: err },
      );
    case 'not_delivered':
      return new ToolHubError('unavailable', `${server} could not be reached for ${ctx.name} (${detail}); ToolHub is reconnecting. Retry shortly.`, { cause: err, retryable: true });
    case 'connection_lost':
      return new ToolHubError(
        'unavailable',
        `${server} dropped the connection while running ${ctx.name} (${detail}); ToolHub is reconnecting. ` +
          (ctx.retrySafe ? 'The tool is safe to retry.' : 'The tool may or may not have run: check its effect before retrying.'),
        { cause: err, retryable: ctx.retrySafe },
      );
    case 'auth':
      return new ToolHubError('permission_denied', `${server} refused ToolHub's credentials (${detail}). An operator must fix the headers of this server in the MCP configuration.`, { cause: err });
    case 'bad_result':
      return ToolHubError.failed(`${server} returned a result for ${ctx.name} that is not a valid MCP tool result.`, err);
    case 'server_error':
      if (err instanceof McpError && err.code === ErrorCode.InvalidParams) {
        return ToolHubError.invalidArgument(`${server} rejected the arguments of ${ctx.name}: ${detail}. Check them against tool_info and call again.`, [
          { field: 'arguments', message: detail },
        ]);
      }
      return ToolHubError.failed(`${server} failed to run ${ctx.name}: ${detail}`, err);
  }
}

/**
 * Settles like `promise`, or rejects with `onTimeout()` once `deadline` passes or `signal` aborts.
 * The promise itself keeps running (a connection being opened stays useful for the next call).
 */
export function withDeadline<T>(promise: Promise<T>, deadline: number, signal: AbortSignal | undefined, onTimeout: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const fail = (): void => {
      cleanup();
      reject(onTimeout());
    };
    const timer = setTimeout(fail, Math.max(0, deadline - Date.now()));
    const cleanup = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', fail);
    };
    if (signal?.aborted) return fail();
    signal?.addEventListener('abort', fail, { once: true });
    promise.then(
      (v) => {
        cleanup();
        resolve(v);
      },
      (e: unknown) => {
        cleanup();
        reject(e);
      },
    );
  });
}
