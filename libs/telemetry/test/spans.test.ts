import { SpanStatusCode, trace } from '@opentelemetry/api';
import { getTracer, recordSpanError, withSpan } from '@toolhub/telemetry';
import { setupTestTracing, type TestTracing } from '@toolhub/telemetry/testing';

class DomainError extends Error {
  override readonly name = 'DomainError';
  readonly code = 'not_found';
}

describe('withSpan', () => {
  let tracing: TestTracing;
  const tracer = getTracer('spans-test');
  beforeAll(() => {
    tracing = setupTestTracing();
  });
  afterEach(() => tracing.reset());
  afterAll(() => tracing.shutdown());

  it('returns the value of a synchronous function and ends the span', () => {
    expect(withSpan(tracer, 'sync', { attributes: { a: 1 } }, () => 42)).toBe(42);
    const [span] = tracing.spans();
    expect(span?.name).toBe('sync');
    expect(span?.attributes['a']).toBe(1);
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('keeps the span active across awaits and ends it when the promise resolves', async () => {
    const result = await withSpan(tracer, 'async', {}, async (span) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(trace.getActiveSpan()).toBe(span);
      expect(tracing.spans()).toHaveLength(0);
      return 'done';
    });
    expect(result).toBe('done');
    expect(tracing.spans().map((s) => s.name)).toEqual(['async']);
  });

  it('nests spans started inside fn under the outer span', async () => {
    await withSpan(tracer, 'outer', {}, async () => {
      await withSpan(tracer, 'inner', {}, async () => undefined);
    });
    const outer = tracing.spans().find((s) => s.name === 'outer');
    const inner = tracing.spans().find((s) => s.name === 'inner');
    expect(inner?.parentSpanContext?.spanId).toBe(outer?.spanContext().spanId);
  });

  it('records a synchronous throw, sets status ERROR, ends the span and rethrows the same error', () => {
    const err = new DomainError('no such tool');
    expect(() =>
      withSpan(tracer, 'throws', {}, () => {
        throw err;
      }),
    ).toThrow(err);
    const [span] = tracing.spans();
    expect(span?.ended).toBe(true);
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'no such tool' });
    expect(span?.attributes['error.type']).toBe('not_found');
    expect(span?.events.map((e) => e.name)).toEqual(['exception']);
    expect(span?.events[0]?.attributes?.['exception.message']).toBe('no such tool');
  });

  it('records a rejection of an async function the same way', async () => {
    await expect(
      withSpan(tracer, 'rejects', {}, async () => {
        await Promise.resolve();
        throw new TypeError('bad');
      }),
    ).rejects.toThrow('bad');
    const [span] = tracing.spans();
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['error.type']).toBe('TypeError');
  });

  it('handles thrown values that are not errors', () => {
    expect(() =>
      withSpan(tracer, 'string-throw', {}, () => {
        throw 'boom';
      }),
    ).toThrow('boom');
    expect(tracing.spans()[0]?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'boom' });
  });

  it('keeps a status fn sets itself when it returns normally', () => {
    withSpan(tracer, 'error-reply', {}, (span) => recordSpanError(span, new DomainError('gone')));
    expect(tracing.spans()[0]?.status.code).toBe(SpanStatusCode.ERROR);
  });
});
