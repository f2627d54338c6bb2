/** Whether the adapter's process traces (a copy of grpc-edge's check: the SDK depends on no ToolHub service library). */
import { ProxyTracerProvider, trace } from '@opentelemetry/api';

/** OpenTelemetry's no-op provider: what a proxy provider without a delegate hands out. */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Whether a real tracer provider (an SDK) is registered, rather than OpenTelemetry's no-op one.
 * Without one a run starts no span: nothing would record it, and the caller's trace context already
 * travels in the request's headers. Cheap enough to ask per run (a provider may come later).
 */
export function tracerProviderRegistered(): boolean {
  const provider = trace.getTracerProvider();
  // A provider that is not the API's proxy (another copy of @opentelemetry/api) counts as real.
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_PROVIDER;
}
