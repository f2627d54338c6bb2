/**
 * Structural limits on tool arguments, checked at the edge before anything is routed: size in
 * bytes, properties and array items in all, depth (see @toolhub/contracts argument-limits). Schema
 * validation and repair happen against the tool's own schema later, within these bounds.
 */
import { type ArgumentLimits, type ArgumentSize, checkArguments, DEFAULT_ARGUMENT_LIMITS } from '@toolhub/contracts';
import { z } from 'zod';

import type { ResolvedDispatcherOptions } from './options';

/** The argument limits in `options`. */
export function argumentLimits(options: Pick<ResolvedDispatcherOptions, 'maxArgumentBytes' | 'maxArgumentNodes' | 'maxArgumentDepth'>): ArgumentLimits {
  return { maxBytes: options.maxArgumentBytes, maxNodes: options.maxArgumentNodes, maxDepth: options.maxArgumentDepth };
}

/**
 * @throws ToolHubError invalid_argument naming the limit and the size found when `args` is larger
 *   or deeper than the options allow.
 */
export function checkArgumentLimits(args: Record<string, unknown>, options: Pick<ResolvedDispatcherOptions, 'maxArgumentBytes' | 'maxArgumentNodes' | 'maxArgumentDepth'>): ArgumentSize {
  return checkArguments(args, argumentLimits(options));
}

/** @throws ToolHubError invalid_argument when `args` nests deeper than `maxDepth`. */
export function checkArgumentDepth(args: Record<string, unknown>, maxDepth: number): void {
  checkArguments(args, { maxBytes: Number.MAX_SAFE_INTEGER, maxNodes: Number.MAX_SAFE_INTEGER, maxDepth });
}

/**
 * Config fields of the argument limits and the validation workers (env TOOLHUB_MAX_ARGUMENT_*,
 * TOOLHUB_ARGUMENT_WORKER_*), spread into the apps that run a dispatcher; pass the parsed values
 * through {@link argumentOptionsFromConfig}.
 */
export function argumentLimitConfigFields() {
  return {
    maxArgumentBytes: {
      env: 'TOOLHUB_MAX_ARGUMENT_BYTES',
      schema: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(DEFAULT_ARGUMENT_LIMITS.maxBytes),
      description: 'Largest arguments of one call (a batch: all its calls), as JSON bytes (protobuf bytes on gRPC); refused before validation',
    },
    maxArgumentNodes: {
      env: 'TOOLHUB_MAX_ARGUMENT_NODES',
      schema: z.coerce.number().int().min(1).max(10_000_000).default(DEFAULT_ARGUMENT_LIMITS.maxNodes),
      description: 'Most properties and array items in one call\'s arguments (a batch: all its calls), at any depth; counted before decoding on gRPC',
    },
    maxArgumentDepth: {
      env: 'TOOLHUB_MAX_ARGUMENT_DEPTH',
      schema: z.coerce.number().int().min(1).max(1000).default(DEFAULT_ARGUMENT_LIMITS.maxDepth),
      description: 'Deepest nesting of objects/arrays in arguments',
    },
    argumentWorkerBytes: {
      env: 'TOOLHUB_ARGUMENT_WORKER_BYTES',
      schema: z.coerce.number().int().min(0).default(256 * 1024),
      description: 'Arguments of at least this many bytes (or TOOLHUB_ARGUMENT_WORKER_NODES items) are validated on a worker thread, off the serving thread; 0 = never',
    },
    argumentWorkerNodes: {
      env: 'TOOLHUB_ARGUMENT_WORKER_NODES',
      schema: z.coerce.number().int().min(1).default(2000),
      description: 'Arguments with at least this many properties and array items are validated on a worker thread',
    },
    argumentWorkers: {
      env: 'TOOLHUB_ARGUMENT_WORKERS',
      schema: z.coerce.number().int().min(1).max(64).default(1),
      description: 'Worker threads validating large arguments (started on first use)',
    },
  };
}

/** The dispatcher options of {@link argumentLimitConfigFields}' parsed values. */
export function argumentOptionsFromConfig(
  config: Pick<ResolvedDispatcherOptions, 'maxArgumentBytes' | 'maxArgumentNodes' | 'maxArgumentDepth' | 'argumentWorkerBytes' | 'argumentWorkerNodes' | 'argumentWorkers'>,
): Pick<ResolvedDispatcherOptions, 'maxArgumentBytes' | 'maxArgumentNodes' | 'maxArgumentDepth' | 'argumentWorkerBytes' | 'argumentWorkerNodes' | 'argumentWorkers'> {
  const { maxArgumentBytes, maxArgumentNodes, maxArgumentDepth, argumentWorkerBytes, argumentWorkerNodes, argumentWorkers } = config;
  return { maxArgumentBytes, maxArgumentNodes, maxArgumentDepth, argumentWorkerBytes, argumentWorkerNodes, argumentWorkers };
}
