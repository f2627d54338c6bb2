import { status } from '@grpc/grpc-js';

import { ErrorInfo } from '../src/gen/toolhub/v1/errors';
import { codeFromGrpcStatus, findToolHubError, grpcStatusOf, TOOLHUB_ERROR_CODES, ToolHubError, toToolHubError, withoutStackTrace } from '../src/errors';

describe('ToolHub error codes', () => {
  it('map to the gRPC status codes of the design', () => {
    expect(grpcStatusOf('invalid_argument')).toBe(status.INVALID_ARGUMENT);
    expect(grpcStatusOf('not_found')).toBe(status.NOT_FOUND);
    expect(grpcStatusOf('timeout')).toBe(status.DEADLINE_EXCEEDED);
    expect(grpcStatusOf('unavailable')).toBe(status.UNAVAILABLE);
    expect(grpcStatusOf('rate_limited')).toBe(status.RESOURCE_EXHAUSTED);
    expect(grpcStatusOf('permission_denied')).toBe(status.PERMISSION_DENIED);
    expect(grpcStatusOf('failed_precondition')).toBe(status.FAILED_PRECONDITION);
    expect(grpcStatusOf('internal')).toBe(status.INTERNAL);
  });

  it('round-trip through gRPC status for every code that has its own status', () => {
    for (const code of TOOLHUB_ERROR_CODES) expect(codeFromGrpcStatus(grpcStatusOf(code))).toBe(code);
  });

  it('survive serialisation to ErrorInfo with all details', () => {
    const e = new ToolHubError('not_found', 'No tool x.', { suggestions: ['y'], parentPath: 'file', retryAfterMs: 5 });
    const back = ToolHubError.fromErrorInfo(ErrorInfo.decode(ErrorInfo.encode(e.toErrorInfo()).finish()));
    expect(back).toMatchObject({ code: 'not_found', message: 'No tool x.', suggestions: ['y'], parentPath: 'file', retryAfterMs: 5, retryable: false });
  });

  it('are found through cause chains', () => {
    const inner = ToolHubError.timeout('late');
    const outer = new Error('wrapped', { cause: new Error('middle', { cause: inner }) });
    expect(findToolHubError(outer)).toBe(inner);
    expect(toToolHubError(outer)).toBe(inner);
  });

  it('turn unexpected failures into internal, never the caller fault', () => {
    const e = toToolHubError(new TypeError('x is undefined'));
    expect(e.code).toBe('internal');
    expect(e.message).toContain('not a problem with the call');
  });
});

describe('withoutStackTrace', () => {
  it('builds an error with its message but no stack frames, and restores the stack trace limit even when building throws', () => {
    const limit = Error.stackTraceLimit;
    const e = withoutStackTrace(() => ToolHubError.unavailable('busy'));
    expect(e.message).toBe('busy');
    expect(e.stack).not.toMatch(/\n\s+at /);
    expect(new Error('normal').stack).toMatch(/\n\s+at /);
    expect(() =>
      withoutStackTrace(() => {
        throw new Error('while building');
      }),
    ).toThrow('while building');
    expect(Error.stackTraceLimit).toBe(limit);
  });
});
