/** @toolhub/ops — health (grpc.health.v1 + reflection), readiness checks and Prometheus metrics for every app. */
export { registerAdapterMetrics } from './adapter-metrics';
export { type OpsConfig, opsConfigFields } from './config';
export { heartbeatConfigFields } from './heartbeat-config';
export { MAX_RUN_SERIES, registerDispatcherMetrics, RUN_BUCKETS } from './dispatcher-metrics';
export { drainStep } from './drain';
export { HEALTH_SERVICES, type RunningHealthServer, startHealthServer } from './health-server';
export { type RunningMetricsServer, startMetricsServer } from './metrics-server';
export { adapterReadiness, dispatcherReadiness, registryReadiness } from './probes';
export { Readiness, type ReadinessCheck, type ReadinessOptions, type ReadinessState } from './readiness';
export { registerRegistryMetrics } from './registry-metrics';
export { assertSafeOpsBind, type OpsOptions, type RunningOps, startOps } from './start';
export { connectNatsForStartup, StartupProgress } from './startup';
