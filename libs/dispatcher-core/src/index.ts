/**
 * @toolhub/dispatcher-core — the dispatcher's logic and its gRPC edge, shared by the dispatcher
 * app and the one-process mode.
 */
export { type ArgumentsValidator, type AsyncRunsConfig, Dispatcher, type DispatcherDeps, mapArgumentsByName } from './dispatcher';
export { AsyncRuns, type AsyncRunsOptions } from './runs/async-runs';
export { RunStats, type RunAttemptSample } from './runs/run-stats';
export { runWorkersDurable } from './runs/run-queue';
export { asyncRunConfigFields, asyncRunOptionsFromConfig } from './runs/run-config';
export { CatalogService, type CatalogDeps } from './catalog';
export { RunPipeline, type RunPipelineDeps } from './run-pipeline';
export { type BatchPlan, type BatchReference, MAX_BATCH_CALLS, planBatch, type PlannedCall } from './batch-plan';
export { type BatchTarget, DEFAULT_BATCH_PARALLEL, MAX_BATCH_PARALLEL, runBatch } from './batch-run';
export { type CatalogVisibility, OPEN_VISIBILITY } from './visibility';
export { CallEventPublisher, type CallEventsOptions } from './call-events';
export { MetadataCache } from './metadata-cache';
export { InflightTracker, type InflightTrackerOptions } from './inflight';
export { RegistryClient } from './registry-client';
export { backoffMs, isRetrySafe } from './retry';
export { type DispatcherOptions, type ResolvedDispatcherOptions, withDefaults } from './options';
export { ProviderDirectory } from './providers';
export { type GrpcServerOptions, type RunningGrpcServer, startGrpcServer } from './grpc-server';
export { type CallContext, toGrpcError } from '@toolhub/grpc-edge';
export { argumentLimitConfigFields, argumentLimits, argumentOptionsFromConfig, checkArgumentDepth, checkArgumentLimits } from './arguments';
export { ARGUMENTS_WORKER_FILE, ArgumentWorkerPool, type ArgumentWorkerStats, runArgumentsWorker } from './argument-workers';
export { type ValidatedArguments } from './validator';
export { type RunningDispatcher, startDispatcher } from './start';
