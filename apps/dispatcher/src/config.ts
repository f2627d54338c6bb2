/** Every environment variable the dispatcher app reads (docker-compose.yml is checked against this). */
import { DEFAULT_REQUESTS_PER_TURN } from '@toolhub/bus';
import { defineConfig, zBoolean, zDuration } from '@toolhub/config';
import { argumentLimitConfigFields } from '@toolhub/dispatcher-core';
import { connectionLimitConfigFields, grpcServerConfigFields } from '@toolhub/grpc-edge';
import { opsConfigFields } from '@toolhub/ops';
import { authConfigFields, natsAuthConfigFields } from '@toolhub/auth';
import { mcpConfigFields } from '@toolhub/mcp-door';
import { asyncRunConfigFields } from '@toolhub/dispatcher-core';
import { z } from 'zod';

export const dispatcherConfig = defineConfig({
  natsUrl: { env: 'NATS_URL', schema: z.string().min(1).default('nats://127.0.0.1:4222'), description: 'NATS server URL(s), comma-separated' },
  grpcHost: { env: 'TOOLHUB_GRPC_HOST', schema: z.string().min(1).default('127.0.0.1'), description: 'Interface the gRPC API listens on (0.0.0.0 in containers)' },
  grpcPort: { env: 'TOOLHUB_GRPC_PORT', schema: z.coerce.number().int().min(0).max(65535).default(50051), description: 'Port of the agent gRPC API' },
  maxMessageBytes: {
    env: 'TOOLHUB_MAX_MESSAGE_BYTES',
    schema: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(4 * 1024 * 1024),
    description: 'Largest request accepted at the gRPC edge, in bytes',
  },
  defaultRunTimeoutMs: { env: 'TOOLHUB_DEFAULT_TIMEOUT', schema: zDuration({ min: '1ms', max: '5m' }).default(30_000), description: 'Run timeout when neither call nor tool sets one ("30s")' },
  redisUrl: { env: 'REDIS_URL', schema: z.string().optional(), description: 'Redis for the shared tool-info cache; unset = in-process cache only', secret: true },
  maxConcurrentPerCaller: {
    env: 'TOOLHUB_MAX_CONCURRENT_PER_CALLER',
    schema: z.coerce.number().int().min(1).max(100_000).default(64),
    description: 'Runs one caller may have in progress at once',
  },
  maxConcurrentRuns: {
    env: 'TOOLHUB_MAX_CONCURRENT_RUNS',
    schema: z.coerce.number().int().min(1).max(100_000).default(256),
    description: 'Runs this dispatcher executes at once; more wait in the admission queue',
  },
  maxQueuedRuns: {
    env: 'TOOLHUB_MAX_QUEUED_RUNS',
    schema: z.coerce.number().int().min(0).max(1_000_000).default(256),
    description: 'Runs that may wait for a slot; past this, runs are shed with RESOURCE_EXHAUSTED and a retry hint',
  },
  maxQueueWaitMs: {
    env: 'TOOLHUB_MAX_QUEUE_WAIT',
    schema: zDuration({ min: '1ms', max: '5m' }).default(1000),
    description: 'A run expected to wait (or having waited) longer than this for a slot is shed with RESOURCE_EXHAUSTED ("1s")',
  },
  eventDurability: {
    env: 'TOOLHUB_EVENT_DURABILITY',
    schema: z.enum(['outbox', 'ack', 'memory']).default('outbox'),
    description: 'How a run\'s tool.called event is durable before the reply: outbox (on-disk journal), ack (wait for JetStream), memory (lost on a crash)',
  },
  outboxDir: {
    env: 'TOOLHUB_OUTBOX_DIR',
    schema: z.string().optional(),
    description: 'Directory of the event outbox; keep it across restarts (a volume or emptyDir). Default: <tmpdir>/toolhub-outbox-<hash of NATS_URL>',
  },
  eventsPerMessage: {
    env: 'TOOLHUB_EVENTS_PER_MESSAGE',
    schema: z.coerce.number().int().min(1).max(1024).default(64),
    description: 'Most tool.called events of one provider published as one JetStream message (tool.called.batch.<provider>); 1 = one message per event, which registries older than 2026-11-27 need to count them',
  },
  adapterRequestsPerTurn: {
    env: 'TOOLHUB_ADAPTER_REQUESTS_PER_TURN',
    schema: z.coerce.number().int().min(0).max(1024).default(DEFAULT_REQUESTS_PER_TURN),
    description: 'Adapter requests sent per event-loop turn (the NATS bus\'s requestsPerTurn); more wait for the next turns, this many at a time, so adapters start on the first while the dispatcher handles the rest (0 = all at once)',
  },
  claimGroups: {
    env: 'TOOLHUB_CLAIM_GROUPS',
    schema: zBoolean().default(false),
    description: 'Stamp tool.called events with claim groups and publish them on tool.called.grouped.<provider>, which registries count with one claim per group (cheaper on FerretDB); turn on once every registry runs 2026-11-27 or later',
  },
  providerTtlMs: {
    env: 'TOOLHUB_PROVIDER_TTL',
    schema: zDuration({ min: '100ms', max: '10m' }).default(15_000),
    description: 'An adapter replica silent this long is gone and its in-flight runs fail ("15s"); use at least 3× the adapters\' TOOLHUB_HEARTBEAT_INTERVAL',
  },
  mongoUrl: {
    env: 'MONGO_URL',
    schema: z.string().optional(),
    description: 'MongoDB (6+) or FerretDB holding async-run records (collection runs), shared by every replica; unset = async runs (StartRun …) off',
    secret: true,
  },
  mongoDb: { env: 'TOOLHUB_MONGO_DB', schema: z.string().min(1).default('toolhub'), description: 'Database of the async-run records' },
  runAckWaitMs: {
    env: 'TOOLHUB_RUN_ACK_WAIT',
    schema: zDuration({ min: '1s', max: '10m' }).default(10_000),
    description: 'An async run whose dispatcher stopped renewing it (died) for this long is taken by another replica ("10s"): retried if idempotent, else reported unknown',
  },
  runRequeueAfterMs: {
    env: 'TOOLHUB_RUN_REQUEUE_AFTER',
    schema: zDuration({ min: '1s', max: '1d' }).default(60_000),
    description: 'An async run still queued this long is put on the queue again ("1m"): closes the gap of a dispatcher that died between storing a run and queueing it',
  },
  ...asyncRunConfigFields(),
  logLevel: { env: 'LOG_LEVEL', schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'), description: 'Log level' },
  ...opsConfigFields(),
  ...grpcServerConfigFields(),
  ...connectionLimitConfigFields(),
  ...argumentLimitConfigFields(),
  ...natsAuthConfigFields(),
  ...authConfigFields(),
  ...mcpConfigFields(),
});
