/** Options of the dispatcher core, with every default in one place. */
import { DEFAULT_ARGUMENT_LIMITS, type ImportanceName } from '@toolhub/contracts';

import { DEFAULT_EVENTS_PER_MESSAGE, type EventDurability } from './call-events';

export interface DispatcherOptions {
  /** Timeout of a run when neither the call nor the tool sets one. @default 30000 */
  defaultRunTimeoutMs?: number;
  /** Upper bound on any run's timeout, whatever the caller asks. @default 300000 */
  maxRunTimeoutMs?: number;
  /** Timeout of list/info requests to adapters. @default 5000 */
  metadataTimeoutMs?: number;
  /** Timeout of tool-info lookups in the registry; past it the adapter is asked instead. @default 2000 */
  registryTimeoutMs?: number;
  /**
   * Timeout of search and preload-set requests to the registry, within the caller's deadline.
   * Nothing else can answer them, so a busy registry is given longer than for info lookups (a
   * registry that is not running is known at once: no responders). @default 10000
   */
  searchTimeoutMs?: number;
  /** Largest gRPC request accepted, in bytes. @default 4194304 (4 MiB) */
  maxMessageBytes?: number;
  /** Deepest nesting accepted in tool arguments. @default 32 */
  maxArgumentDepth?: number;
  /**
   * Largest arguments of one call (a batch's calls together), as JSON text in bytes (protobuf bytes
   * at the gRPC edge), refused before any validation. @default 4194304 (4 MiB)
   */
  maxArgumentBytes?: number;
  /**
   * Most properties and array items, at any depth, in one call's arguments (a batch's calls
   * together), refused before decoding at the gRPC edge and before validation everywhere: decoding,
   * validating and forwarding cost about linear in this count on the serving thread. @default 10000
   */
  maxArgumentNodes?: number;
  /**
   * Arguments of at least this many bytes are validated and repaired on a worker thread, so a large
   * input does not hold the thread that serves every other call. 0 = never. @default 262144 (256 KiB)
   */
  argumentWorkerBytes?: number;
  /** Arguments with at least this many properties and array items are validated on a worker thread too. @default 2000 */
  argumentWorkerNodes?: number;
  /** Worker threads for large arguments (started on first use). @default 1 */
  argumentWorkers?: number;
  /** Runs one caller may have in progress at once. @default 64 */
  maxConcurrentPerCaller?: number;
  /** Runs this dispatcher executes at once; more wait in the admission queue. @default 256 */
  maxConcurrentRuns?: number;
  /**
   * Runs that may wait for a slot; past this, runs are shed with RESOURCE_EXHAUSTED. @default 256
   * (512 until 2026-11-29: under a 2,000-call burst the last of 768 admitted calls answered at
   * 0.6–1.1 s on 2 cores, of 512 at 0.47–0.63 s; bench/chaos/README.md)
   */
  maxQueuedRuns?: number;
  /** A run expected to wait (or having waited) longer than this for a slot is shed. @default 1000 */
  maxQueueWaitMs?: number;
  /**
   * How a run's `tool.called` event is made durable before the reply: `outbox` (on-disk journal,
   * needs `outboxDir`), `ack` (wait for JetStream) or `memory` (lost on a crash). @default 'memory'
   */
  eventDurability?: EventDurability;
  /** Directory of the event outbox (durability `outbox`). @default '' */
  outboxDir?: string;
  /**
   * Most `tool.called` events of one provider published as one message (`CallEventsOptions.eventsPerMessage`);
   * 1 = one message per event, as registries older than 2026-11-27 read them. Checked by the
   * publisher (1 to `MAX_EVENTS_PER_MESSAGE`). @default 64
   */
  eventsPerMessage?: number;
  /**
   * Stamp each `tool.called` event with a claim group and publish them on
   * `tool.called.grouped.<provider>` (`CallEventsOptions.claimGroups`): registries then claim a
   * group's events with one document. Turn on once the registries run 2026-11-27 or later. @default false
   */
  claimGroups?: boolean;
  /**
   * How often the replicas holding in-flight runs are asked whether they are still there. A
   * replica whose NATS connection is gone answers "no responders" at once, so its runs fail within
   * about this long (not after the heartbeat TTL). 0 turns probing off. @default 500
   */
  replicaProbeMs?: number;
  /** Attempts per tool when retrying is safe (idempotent/read-only tools or an idempotency key). @default 3 */
  maxAttempts?: number;
  /** First retry delay; doubles per attempt, with jitter. @default 50 */
  retryBaseMs?: number;
  /** Longest retry delay. @default 1000 */
  retryMaxMs?: number;
  /** A provider replica is forgotten (and its in-flight calls failed) after this long without a heartbeat. @default 15000 */
  providerTtlMs?: number;
  /**
   * A replica that says it is stopping gets this long to finish the calls it holds (adapters drain
   * for 10 s by default) before they fail as lost; a replica killed mid-drain costs its calls this
   * wait. @default 15000
   */
  adapterDrainMs?: number;
  /** Cache TTL by importance, in ms. @default core 12 h, normal 4 h, low 1 h */
  ttlMs?: Partial<Record<ImportanceName, number>>;
  /** Warm the cache with the info of core-importance tools at start-up. @default true */
  warmCoreTools?: boolean;
}

export type ResolvedDispatcherOptions = Required<Omit<DispatcherOptions, 'ttlMs'>> & { ttlMs: Record<ImportanceName, number> };

const HOUR = 3_600_000;

export function withDefaults(options: DispatcherOptions = {}): ResolvedDispatcherOptions {
  const resolved: ResolvedDispatcherOptions = {
    defaultRunTimeoutMs: options.defaultRunTimeoutMs ?? 30_000,
    maxRunTimeoutMs: options.maxRunTimeoutMs ?? 300_000,
    metadataTimeoutMs: options.metadataTimeoutMs ?? 5_000,
    registryTimeoutMs: options.registryTimeoutMs ?? 2_000,
    searchTimeoutMs: options.searchTimeoutMs ?? 10_000,
    maxMessageBytes: options.maxMessageBytes ?? 4 * 1024 * 1024,
    maxArgumentDepth: options.maxArgumentDepth ?? DEFAULT_ARGUMENT_LIMITS.maxDepth,
    maxArgumentBytes: options.maxArgumentBytes ?? DEFAULT_ARGUMENT_LIMITS.maxBytes,
    maxArgumentNodes: options.maxArgumentNodes ?? DEFAULT_ARGUMENT_LIMITS.maxNodes,
    argumentWorkerBytes: options.argumentWorkerBytes ?? 256 * 1024,
    argumentWorkerNodes: options.argumentWorkerNodes ?? 2000,
    argumentWorkers: options.argumentWorkers ?? 1,
    maxConcurrentPerCaller: options.maxConcurrentPerCaller ?? 64,
    maxConcurrentRuns: options.maxConcurrentRuns ?? 256,
    maxQueuedRuns: options.maxQueuedRuns ?? 256,
    maxQueueWaitMs: options.maxQueueWaitMs ?? 1000,
    eventDurability: options.eventDurability ?? 'memory',
    outboxDir: options.outboxDir ?? '',
    eventsPerMessage: options.eventsPerMessage ?? DEFAULT_EVENTS_PER_MESSAGE,
    claimGroups: options.claimGroups ?? false,
    replicaProbeMs: options.replicaProbeMs ?? 500,
    maxAttempts: options.maxAttempts ?? 3,
    retryBaseMs: options.retryBaseMs ?? 50,
    retryMaxMs: options.retryMaxMs ?? 1000,
    providerTtlMs: options.providerTtlMs ?? 15_000,
    adapterDrainMs: options.adapterDrainMs ?? 15_000,
    ttlMs: { core: 12 * HOUR, normal: 4 * HOUR, low: HOUR, ...options.ttlMs },
    warmCoreTools: options.warmCoreTools ?? true,
  };
  const problems: string[] = [];
  if (resolved.defaultRunTimeoutMs > resolved.maxRunTimeoutMs) problems.push(`defaultRunTimeoutMs (${resolved.defaultRunTimeoutMs}) must not exceed maxRunTimeoutMs (${resolved.maxRunTimeoutMs})`);
  if (!(resolved.adapterDrainMs >= 0)) problems.push(`adapterDrainMs must be at least 0, got ${resolved.adapterDrainMs}`);
  if (resolved.maxAttempts < 1) problems.push(`maxAttempts must be at least 1, got ${resolved.maxAttempts}`);
  if (!(resolved.maxConcurrentRuns >= 1)) problems.push(`maxConcurrentRuns must be at least 1, got ${resolved.maxConcurrentRuns}`);
  if (!(resolved.maxQueuedRuns >= 0)) problems.push(`maxQueuedRuns must be at least 0, got ${resolved.maxQueuedRuns}`);
  if (resolved.eventDurability === 'outbox' && !resolved.outboxDir) problems.push('eventDurability "outbox" needs outboxDir');
  for (const key of ['maxArgumentDepth', 'maxArgumentBytes', 'maxArgumentNodes', 'argumentWorkerNodes', 'argumentWorkers'] as const) {
    if (!(Number.isInteger(resolved[key]) && resolved[key] >= 1)) problems.push(`${key} must be a positive integer, got ${resolved[key]}`);
  }
  if (!(Number.isInteger(resolved.argumentWorkerBytes) && resolved.argumentWorkerBytes >= 0)) problems.push(`argumentWorkerBytes must be an integer of at least 0, got ${resolved.argumentWorkerBytes}`);
  if (resolved.maxConcurrentPerCaller < 1) problems.push(`maxConcurrentPerCaller must be at least 1, got ${resolved.maxConcurrentPerCaller}`);
  for (const [k, v] of Object.entries(resolved.ttlMs)) if (!(v > 0)) problems.push(`ttlMs.${k} must be positive, got ${v}`);
  if (problems.length) throw new Error(`Invalid dispatcher options: ${problems.join('; ')}`);
  return resolved;
}
