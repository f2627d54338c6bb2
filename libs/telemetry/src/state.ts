/**
 * The one tracer provider of this process, shared by every `initTelemetry()` call and by
 * `setupTestTracing()`. Internal: not exported from the package index.
 *
 * The slot lives on `globalThis` under a registered symbol (as `@opentelemetry/api` keeps its own
 * globals) so that two bundled copies of this package in one process still share one provider.
 */
import { context, propagation, trace, type ContextManager, type TracerProvider } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';

/** What shuts a registered provider down. */
export interface ShutdownableProvider extends TracerProvider {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** The registered provider and who holds it. */
export interface TelemetryState {
  readonly provider: ShutdownableProvider;
  /** `sdk` from `initTelemetry()`, `test` from `setupTestTracing()`. */
  readonly kind: 'sdk' | 'test';
  /** Service name of the first `initTelemetry()` call: it names the shared resource. */
  readonly serviceName: string;
  /** Open handles; the provider shuts down when the last one closes. */
  refs: number;
  closed: boolean;
  /**
   * Whether `provider` was offered as the global tracer provider. `false` where it records nothing:
   * the libraries then use OpenTelemetry's no-op tracers, and only the handles' `getTracer()` reach it.
   */
  readonly globalTracer: boolean;
  /** Whether this state registered the global provider, context manager and propagator. */
  readonly registered: { tracer: boolean; context: boolean; propagator: boolean };
}

const STATE_KEY = Symbol.for('toolhub.telemetry.state.v1');

type GlobalWithState = typeof globalThis & { [STATE_KEY]?: TelemetryState };

/** The live state, if a provider is registered and not yet shut down. */
export function currentState(): TelemetryState | undefined {
  const state = (globalThis as GlobalWithState)[STATE_KEY];
  return state && !state.closed ? state : undefined;
}

/** What {@link registerProvider} registers besides the propagators. */
export interface RegisterOptions {
  /**
   * Register `provider` as the global tracer provider. Without it the libraries' tracers stay
   * OpenTelemetry's no-op ones: no span objects, ids or timers per call, and a caller's span context
   * passes through unchanged (see grpc-edge's `tracerProviderRegistered`). @default true
   */
  tracer?: boolean;
  /** Register an AsyncLocalStorage context manager. @default true */
  asyncContext?: boolean;
}

/**
 * Registers the W3C TraceContext + Baggage propagators and, as `options` say, `provider` as the
 * global tracer provider and an AsyncLocalStorage context manager, and stores it as the process's
 * state with one reference. Without the context manager, `context.active()` is always the root
 * context: the active span does not follow async calls, and services pass trace headers on
 * explicitly (see grpc-edge's `CallContext.traceHeaders`).
 */
export function registerProvider(
  provider: ShutdownableProvider,
  kind: TelemetryState['kind'],
  serviceName: string,
  options: RegisterOptions = {},
): TelemetryState {
  const contextManager: ContextManager | undefined = (options.asyncContext ?? true) ? new AsyncLocalStorageContextManager() : undefined;
  contextManager?.enable();
  const registered = {
    // Each `setGlobal*` refuses (returns false) when something else registered first; then that
    // registration stays in charge and we must not disable it on shutdown.
    tracer: (options.tracer ?? true) ? trace.setGlobalTracerProvider(provider) : false,
    context: contextManager ? context.setGlobalContextManager(contextManager) : false,
    propagator: propagation.setGlobalPropagator(
      new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
    ),
  };
  if (contextManager && !registered.context) contextManager.disable();
  const state: TelemetryState = { provider, kind, serviceName, refs: 1, closed: false, globalTracer: options.tracer ?? true, registered };
  (globalThis as GlobalWithState)[STATE_KEY] = state;
  return state;
}

/**
 * Drops one reference. The last one flushes and shuts the provider down and unregisters the
 * globals this state registered, so a later `initTelemetry()` starts afresh; earlier ones only flush.
 */
export async function releaseState(state: TelemetryState): Promise<void> {
  if (state.closed) return;
  state.refs -= 1;
  if (state.refs > 0) {
    await state.provider.forceFlush();
    return;
  }
  await closeState(state);
}

/** Shuts the state down now, whatever handles remain open (theirs become no-ops). */
export async function closeState(state: TelemetryState): Promise<void> {
  if (state.closed) return;
  state.closed = true;
  const slot = globalThis as GlobalWithState;
  if (slot[STATE_KEY] === state) delete slot[STATE_KEY];
  try {
    await state.provider.shutdown();
  } finally {
    if (state.registered.tracer) trace.disable();
    if (state.registered.context) context.disable();
    if (state.registered.propagator) propagation.disable();
  }
}
