/**
 * Test helpers of @toolhub/telemetry (entry `@toolhub/telemetry/testing`): an in-memory span
 * exporter registered as the process's provider, so a test can assert on every span that the
 * services it starts produce, and that one trace spans several of them.
 */
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { TelemetryError } from './errors';
import { buildResource } from './resource';
import { closeState, currentState, registerProvider } from './state';

export type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
export { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';

/** What {@link setupTestTracing} returns. */
export interface TestTracing {
  /** The exporter every finished span lands in. */
  readonly exporter: InMemorySpanExporter;
  /** Finished spans so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** Forgets the finished spans (e.g. in `afterEach`). */
  reset(): void;
  /**
   * Shuts the provider down and unregisters it, whatever `initTelemetry()` handles services still
   * hold (theirs become no-ops). Call it in `afterAll`.
   */
  shutdown(): Promise<void>;
}

/**
 * Registers a global tracer provider that exports each span synchronously to an
 * `InMemorySpanExporter`, with the same propagators and context manager as production. Call it
 * before starting services: their `initTelemetry()` calls then reuse this provider.
 *
 * @throws TelemetryError `already_initialized` if a provider is registered already (a previous
 *   `setupTestTracing()` or `initTelemetry()` that was not shut down).
 */
export function setupTestTracing(): TestTracing {
  if (currentState()) {
    throw new TelemetryError('already_initialized', 'setupTestTracing: a tracer provider is already registered; shut the previous one down first');
  }
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({
    resource: buildResource({ serviceName: 'test', env: {} }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const state = registerProvider(provider, 'test', 'test');
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    shutdown: () => closeState(state),
  };
}
