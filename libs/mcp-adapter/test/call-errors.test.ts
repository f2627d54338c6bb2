import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ToolHubError } from '@toolhub/contracts';

import { callError, classifyCallError, withDeadline } from '../src/call-errors';
import { SecretRedactor as Redactor } from '@toolhub/config';

const redactor = new Redactor(['Bearer sk-live-123456', 'hunter22']);
const ctx = { alias: 'gh', name: 'gh_create_issue', elapsedMs: 1500, retrySafe: false, redactor };

describe('classifyCallError', () => {
  it('tells requests that never left from ones cut off mid-way', () => {
    expect(classifyCallError(new Error('Not connected'))).toBe('not_delivered');
    expect(classifyCallError(new StreamableHTTPError(404, 'Session not found'))).toBe('not_delivered');
    expect(classifyCallError(Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) }))).toBe('not_delivered');
    expect(classifyCallError(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'))).toBe('connection_lost');
    expect(classifyCallError(new StreamableHTTPError(502, 'Bad gateway'))).toBe('connection_lost');
  });

  it('recognises deadlines, refused credentials and server errors', () => {
    const aborted = new AbortController();
    aborted.abort();
    expect(classifyCallError(new McpError(ErrorCode.RequestTimeout, 'x'), aborted.signal)).toBe('aborted');
    expect(classifyCallError(new McpError(ErrorCode.RequestTimeout, 'Request timed out'))).toBe('timeout');
    expect(classifyCallError(new StreamableHTTPError(401, 'Unauthorized'))).toBe('auth');
    expect(classifyCallError(new McpError(ErrorCode.InvalidParams, 'bad'))).toBe('server_error');
    expect(classifyCallError(ToolHubError.timeout('x'))).toBe('toolhub');
  });
});

describe('callError', () => {
  it('says a timed-out call was cancelled and how to retry', () => {
    const e = callError(new McpError(ErrorCode.RequestTimeout, 'Request timed out'), 'timeout', ctx);
    expect(e.code).toBe('timeout');
    expect(e.message).toBe('Tool gh_create_issue did not finish within 1500 ms and was cancelled (ToolHub sent the MCP server "gh" a cancellation). Retry with a larger timeout_ms or smaller input.');
  });

  it('warns that a non-idempotent tool may have run when the connection dropped', () => {
    const e = callError(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'), 'connection_lost', ctx);
    expect(e.code).toBe('unavailable');
    expect(e.retryable).toBe(false);
    expect(e.message).toMatch(/may or may not have run/);
    expect(callError(new McpError(ErrorCode.ConnectionClosed, 'x'), 'connection_lost', { ...ctx, retrySafe: true }).retryable).toBe(true);
  });

  it('maps invalid params to invalid_argument and other server errors to failed, never leaking secrets', () => {
    const bad = callError(new McpError(ErrorCode.InvalidParams, 'token hunter22 is not allowed'), 'server_error', ctx);
    expect(bad.code).toBe('invalid_argument');
    expect(bad.message).toBe('MCP server "gh" rejected the arguments of gh_create_issue: token [REDACTED] is not allowed. Check them against tool_info and call again.');
    const failed = callError(new McpError(ErrorCode.InternalError, 'boom with Bearer sk-live-123456'), 'server_error', ctx);
    expect(failed.code).toBe('failed');
    expect(failed.message).not.toContain('sk-live');
    expect(callError(new StreamableHTTPError(403, 'Forbidden'), 'auth', ctx).code).toBe('permission_denied');
  });
});

describe('Redactor', () => {
  it('hides whole values and their words, longest first, but not short common words', () => {
    const r = new Redactor(['Bearer sk-live-123456', 'true', 'abc']);
    expect(r.redact('header Bearer sk-live-123456 and sk-live-123456 alone; true abc')).toBe('header [REDACTED] and [REDACTED] alone; true abc');
  });
});

describe('withDeadline', () => {
  it('rejects at the deadline and on abort, and passes results through', async () => {
    await expect(withDeadline(new Promise(() => {}), Date.now() + 20, undefined, () => new Error('late'))).rejects.toThrow('late');
    const ac = new AbortController();
    const p = withDeadline(new Promise(() => {}), Date.now() + 10_000, ac.signal, () => new Error('aborted'));
    ac.abort();
    await expect(p).rejects.toThrow('aborted');
    await expect(withDeadline(Promise.resolve(7), Date.now() + 1000, undefined, () => new Error('x'))).resolves.toBe(7);
  });
});
