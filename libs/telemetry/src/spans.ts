/** Tracers and the `withSpan` helper every service uses to trace a unit of work. */
import {
  context,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';

/**
 * A tracer from the process's global provider, named after the code that creates spans (e.g.
 * `@toolhub/dispatcher`). Works before `initTelemetry()` too: the API hands out a proxy that starts
 * recording once a provider is registered.
 */
export function getTracer(name: string, version?: string): Tracer {
  return trace.getTracer(name, version);
}

/** Options of {@link withSpan}: the usual span options plus the parent context. */
export interface WithSpanOptions extends SpanOptions {
  /**
   * Context the span is a child of, e.g. the result of `extractTraceContext(headers)` in a message
   * handler. @default the active context
   */
  parent?: Context;
}

/**
 * Runs `fn` inside a new span that is active for `fn`'s whole duration (including its awaits), and
 * ends the span when `fn` returns or, for a promise, settles. When `fn` throws or the promise
 * rejects, the exception is recorded, the status set to ERROR and the error rethrown unchanged.
 * A status `fn` sets itself is kept when it returns normally.
 */
export function withSpan<T>(tracer: Tracer, name: string, options: WithSpanOptions, fn: (span: Span) => T): T {
  const { parent, ...spanOptions } = options;
  return tracer.startActiveSpan(name, spanOptions, parent ?? context.active(), (span): T => {
    let result: T;
    try {
      result = fn(span);
    } catch (err) {
      recordSpanError(span, err);
      span.end();
      throw err;
    }
    if (isPromiseLike(result)) {
      return result.then(
        (value) => {
          span.end();
          return value;
        },
        (err: unknown) => {
          recordSpanError(span, err);
          span.end();
          throw err;
        },
      ) as T;
    }
    span.end();
    return result;
  });
}

/**
 * Marks `span` as failed by `err`: records it as an exception event, sets status ERROR with the
 * error's message and the `error.type` attribute (the error's `name`/`code`). Use it where a span
 * ends without a throw, e.g. on an error reply.
 */
export function recordSpanError(span: Span, err: unknown): void {
  if (err instanceof Error) {
    span.recordException(err);
    const code = (err as { code?: unknown }).code;
    span.setAttribute('error.type', typeof code === 'string' ? code : err.name);
    span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
  } else {
    const message = String(err);
    span.recordException(message);
    span.setAttribute('error.type', '_OTHER');
    span.setStatus({ code: SpanStatusCode.ERROR, message });
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
