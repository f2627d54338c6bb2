/**
 * One call per app wires operations: the gRPC health server (readiness from the app's checks,
 * liveness apart), Prometheus metrics over HTTP, and gRPC call latency from `@toolhub/grpc-edge`.
 */
import { ToolHubError } from '@toolhub/contracts';
import { isLoopbackHost, observeRpcs } from '@toolhub/grpc-edge';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

import { boundHistogram } from './bound-histogram';
import type { OpsConfig } from './config';
import { type RunningHealthServer, startHealthServer } from './health-server';
import { type RunningMetricsServer, startMetricsServer } from './metrics-server';
import { Readiness, type ReadinessCheck, type ReadinessState } from './readiness';

interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface OpsOptions {
  /** App name, the `app` label on every metric. */
  app: string;
  config: OpsConfig;
  /** Readiness conditions (see probes.ts); all must pass. */
  readiness: ReadinessCheck[];
  /** Registers the app's own metrics (registerDispatcherMetrics, ...). */
  metrics?: (registry: Registry) => void;
  logger?: Logger;
  /** @default 5000 */
  readinessIntervalMs?: number;
  /** The app's NATS bus: its refused publishes/subscriptions become `toolhub_nats_permission_violations_total`. */
  bus?: { readonly permissionViolations?: number };
}

export interface RunningOps {
  readonly registry: Registry;
  readonly readiness: Readiness;
  /** undefined when TOOLHUB_HEALTH_PORT is -1. */
  readonly health: RunningHealthServer | undefined;
  /** undefined when TOOLHUB_METRICS_PORT is -1. */
  readonly metrics: RunningMetricsServer | undefined;
  /** Readiness off (load balancers drain us), then both servers close. */
  close(): Promise<void>;
}

/** RPC latency buckets in seconds (search, listing and info calls, plus RunTool end to end). */
const RPC_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Fail closed like the APIs (assertSafeBind of @toolhub/grpc-edge): the ops endpoints have no
 * auth and /metrics names every tool, hidden ones included, so other machines reach them only by an
 * explicit opt-in.
 * @throws ToolHubError failed_precondition naming TOOLHUB_OPS_PUBLIC and TOOLHUB_OPS_HOST
 */
export function assertSafeOpsBind(config: Pick<OpsConfig, 'opsHost' | 'opsPublic'>): void {
  if (config.opsPublic || isLoopbackHost(config.opsHost)) return;
  throw new ToolHubError(
    'failed_precondition',
    `The operations endpoints refuse to serve health and /metrics on ${config.opsHost}: they have no authentication, and /metrics names every tool. ` +
      'Set TOOLHUB_OPS_PUBLIC=1 only where that address is private (a container or pod network scraped by your Prometheus), or TOOLHUB_OPS_HOST=127.0.0.1.',
  );
}

/** Starts the health and metrics endpoints and the readiness loop. @throws when a port is taken or the host is refused ({@link assertSafeOpsBind}) */
export async function startOps(options: OpsOptions): Promise<RunningOps> {
  const { config } = options;
  assertSafeOpsBind(config);
  const registry = new Registry();
  registry.setDefaultLabels({ app: options.app });
  collectDefaultMetrics({ register: registry });
  const rpcs = new Histogram({
    name: 'toolhub_grpc_server_duration_seconds',
    help: 'gRPC calls served, by method and status code (SearchTools here is the search latency agents see)',
    labelNames: ['method', 'code'] as const,
    buckets: RPC_BUCKETS,
    registers: [registry],
  });
  const children = new Map<string, (v: number) => void>();
  observeRpcs((method, code, seconds) => {
    const key = `${method}\u0000${code}`;
    let observe = children.get(key);
    if (!observe) {
      observe = boundHistogram(rpcs, { method, code: String(code) });
      children.set(key, observe);
    }
    observe(seconds);
  });
  const bus = options.bus;
  if (bus && bus.permissionViolations !== undefined) {
    new Counter({
      name: 'toolhub_nats_permission_violations_total',
      help: 'Publishes and subscriptions the NATS server refused for this service\'s user (each one is also logged at error); anything above 0 is a mis-configured permission',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(bus.permissionViolations ?? 0);
      },
    });
  }
  options.metrics?.(registry);

  const health = config.healthPort >= 0 ? await startHealthServer(config.opsHost, config.healthPort) : undefined;
  const readiness = new Readiness(options.readiness, (ready) => health?.setReady(ready), { intervalMs: options.readinessIntervalMs, logger: options.logger });
  let metrics: RunningMetricsServer | undefined;
  try {
    metrics = config.metricsPort >= 0 ? await startMetricsServer(config.opsHost, config.metricsPort, registry, () => readiness.state) : undefined;
  } catch (err) {
    await health?.close();
    throw err;
  }
  await readiness.start();
  options.logger?.info({ health: health?.address, metrics: metrics?.url, ready: readiness.state.ready }, 'operations endpoints up');
  let closed: Promise<void> | undefined;
  return {
    registry,
    readiness,
    health,
    metrics,
    close() {
      closed ??= (async () => {
        readiness.stop();
        observeRpcs(undefined);
        await Promise.all([health?.close(), metrics?.close()]);
      })();
      return closed;
    },
  };
}

export type { ReadinessState };
