/**
 * Carrying the trace context across process boundaries: plain header records (NATS messages) and
 * gRPC metadata. Uses the globally registered propagator (W3C TraceContext + Baggage once
 * `initTelemetry()` ran; a no-op before).
 */
import { context, propagation, ROOT_CONTEXT, type Context, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';
import type { Metadata } from '@grpc/grpc-js';

/** A header record as it arrives: values may repeat, and absent keys may read as `undefined`. */
export type IncomingHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

const recordSetter: TextMapSetter<Record<string, string>> = {
  set(carrier, key, value) {
    carrier[key] = value;
  },
};

const recordGetter: TextMapGetter<IncomingHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get(carrier, key) {
    // Propagators ask in lower case; a sender may have capitalised (`Traceparent`).
    let value = carrier[key];
    if (value === undefined) {
      const match = Object.keys(carrier).find((k) => k.toLowerCase() === key);
      value = match === undefined ? undefined : carrier[match];
    }
    if (value === undefined) return undefined;
    return typeof value === 'string' ? value : [...value];
  },
};

/**
 * Writes the trace context of `ctx` (`traceparent`, `tracestate`, and `baggage` when there is
 * any) into `headers`, mutating and returning it. Writes nothing when `ctx` has no valid span.
 * @param ctx @default the active context
 */
export function injectTraceHeaders(headers: Record<string, string>, ctx: Context = context.active()): Record<string, string> {
  propagation.inject(ctx, headers, recordSetter);
  return headers;
}

/**
 * Reads the trace context from received headers into a `Context` whose remote span becomes the
 * parent of spans started in it (pass it as `withSpan`'s `parent`). Header names match
 * case-insensitively. Missing or malformed headers give `base` unchanged, so the handler starts a
 * new trace instead of failing.
 * @param base @default ROOT_CONTEXT — as OpenTelemetry's HTTP and messaging instrumentations do, so a
 *   handler never adopts whatever span happens to be active in the receiving process
 */
export function extractTraceContext(headers: IncomingHeaders, base: Context = ROOT_CONTEXT): Context {
  return propagation.extract(base, headers, recordGetter);
}

const metadataSetter: TextMapSetter<Metadata> = {
  set(carrier, key, value) {
    carrier.set(key, value);
  },
};

const metadataGetter: TextMapGetter<Metadata> = {
  keys: (carrier) => Object.keys(carrier.getMap()),
  get(carrier, key) {
    // Binary (`-bin`) values are Buffers; trace headers are text, so keep strings only.
    const values = carrier.get(key).filter((v): v is string => typeof v === 'string');
    if (values.length === 0) return undefined;
    return values.length === 1 ? values[0] : values;
  },
};

/**
 * Reads the trace context from incoming gRPC metadata (`call.metadata`) into a `Context`, as
 * {@link extractTraceContext} does for headers.
 * @param base @default ROOT_CONTEXT
 */
export function extractGrpcContext(metadata: Metadata, base: Context = ROOT_CONTEXT): Context {
  return propagation.extract(base, metadata, metadataGetter);
}

/**
 * Writes the trace context of `ctx` into outgoing gRPC metadata, mutating and returning it.
 * @param ctx @default the active context
 */
export function injectGrpcMetadata(metadata: Metadata, ctx: Context = context.active()): Metadata {
  propagation.inject(ctx, metadata, metadataSetter);
  return metadata;
}
