/**
 * Whether this process traces, and how a call that is not traced still carries its caller's trace
 * context. Shared by the edge and the dispatcher (the adapter SDK has its own copy of
 * `tracerProviderRegistered`: it stays free of ToolHub's service libraries).
 */
import type { Metadata } from '@grpc/grpc-js';
import { propagation, ProxyTracerProvider, ROOT_CONTEXT, type TextMapGetter, type TextMapPropagator, type TextMapSetter, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/** OpenTelemetry's no-op provider: what a proxy provider without a delegate hands out. */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Whether a real tracer provider (an SDK) is registered, rather than OpenTelemetry's no-op one.
 * `@toolhub/telemetry` registers its provider only where spans are recorded (an exporter, a span
 * processor or a sampler is configured) or the async context is on; without one, ToolHub starts no
 * spans: no span objects, ids, attributes or timers per call. Cheap enough to ask on every call (a
 * provider may be registered after the services started, e.g. by a test).
 */
export function tracerProviderRegistered(): boolean {
  const provider = trace.getTracerProvider();
  // A provider that is not the API's proxy (another copy of @opentelemetry/api) counts as real.
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_PROVIDER;
}

export const metadataGetter: TextMapGetter<Metadata> = {
  get: (carrier, key) => {
    const values = carrier.get(key);
    return values.length ? values.map(String) : undefined;
  },
  keys: (carrier) => Object.keys(carrier.getMap()),
};

const recordSetter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => void (carrier[key] = value),
};

/** ToolHub's wire speaks W3C trace context even in a process where nobody registered a propagator. */
const w3c = new W3CTraceContextPropagator();

/** The registered propagator, or W3C trace context when none is (OpenTelemetry's no-op has no fields). */
function propagator(): TextMapPropagator {
  return propagation.fields().length > 0 ? propagation : w3c;
}

/**
 * The caller's trace context from incoming gRPC metadata as headers to send on (`traceparent`, and
 * `tracestate`/`baggage` when present), unchanged: the caller's span stays the parent of whatever
 * records downstream. Read and written by the propagator, so a malformed `traceparent` is dropped.
 * `undefined` when the call carries no (valid) trace context.
 */
export function callerTraceHeaders(metadata: Metadata): Record<string, string> | undefined {
  const p = propagator();
  const parent = p.extract(ROOT_CONTEXT, metadata, metadataGetter);
  if (parent === ROOT_CONTEXT) return undefined;
  const headers: Record<string, string> = {};
  p.inject(parent, headers, recordSetter);
  return Object.keys(headers).length > 0 ? headers : undefined;
}
