/** The dispatcher as its own process: gRPC in, NATS out. */
import { natsStatusLogger } from '@toolhub/bus';
import { type Cache, MemoryCache, TieredCache } from '@toolhub/cache';
import { RedisCache } from '@toolhub/cache/redis';
import { edgeSecurityFrom } from '@toolhub/auth';
import { assertSafeBind, connectionLimitsFromConfig } from '@toolhub/grpc-edge';
import { argumentOptionsFromConfig, asyncRunOptionsFromConfig, type Dispatcher, startDispatcher } from '@toolhub/dispatcher-core';
import { connectMongoRunStore } from '@toolhub/run-store/mongo';
import { startMcpDoor } from '@toolhub/mcp-door';
import { connectNatsForStartup, dispatcherReadiness, drainStep, registerDispatcherMetrics, StartupProgress, startOps } from '@toolhub/ops';
import { onShutdown } from '@toolhub/runtime';
import { createLogger, initTelemetry } from '@toolhub/telemetry';

import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { dispatcherConfig } from './config';

/**
 * One outbox per NATS deployment: a dispatcher only republishes events meant for the NATS it talks
 * to (two test stacks on one machine must not exchange events).
 */
function defaultOutboxDir(natsUrl: string): string {
  return join(tmpdir(), `toolhub-outbox-${createHash('sha256').update(natsUrl).digest('hex').slice(0, 12)}`);
}

async function main(): Promise<void> {
  const config = dispatcherConfig.load();
  const telemetry = initTelemetry({ serviceName: 'dispatcher' });
  const log = createLogger({ name: 'dispatcher', level: config.logLevel });
  const security = edgeSecurityFrom(config, log);
  // Fail closed before connecting anywhere: a reachable API must check credentials.
  assertSafeBind('The dispatcher', config.grpcHost, security.authenticator.enabled, security.allowUnauthenticated);
  // Health and metrics answer from the start: live, not ready until NATS answers (a dispatcher
  // started before NATS waits for it instead of exiting; its outbox stays where it is meanwhile).
  const startup = new StartupProgress();
  const ops = await startOps({ app: 'dispatcher', config, logger: log, readiness: [startup.check], bus: startup });
  const bus = await connectNatsForStartup({ servers: config.natsUrl.split(','), name: 'toolhub-dispatcher', requestsPerTurn: config.adapterRequestsPerTurn, onStatus: natsStatusLogger(log) }, startup, log);
  let cache: Cache = new MemoryCache();
  if (config.redisUrl) {
    // Redis down is not fatal: the cache reports it (once per change) and the dispatcher serves uncached.
    const redis = await RedisCache.connect({
      url: config.redisUrl,
      onStateChange: (state) => (state.healthy ? log.info({ cache: state.detail }, 'redis cache available') : log.warn({ cache: state.detail }, 'redis cache down; serving without it')),
    });
    cache = new TieredCache(redis);
  }
  const running = await startDispatcher(bus, {
    dispatcher: {
      maxMessageBytes: config.maxMessageBytes,
      ...argumentOptionsFromConfig(config),
      defaultRunTimeoutMs: config.defaultRunTimeoutMs,
      maxConcurrentPerCaller: config.maxConcurrentPerCaller,
      maxConcurrentRuns: config.maxConcurrentRuns,
      maxQueuedRuns: config.maxQueuedRuns,
      maxQueueWaitMs: config.maxQueueWaitMs,
      eventDurability: config.eventDurability,
      outboxDir: config.outboxDir || defaultOutboxDir(config.natsUrl),
      eventsPerMessage: config.eventsPerMessage,
      claimGroups: config.claimGroups,
      providerTtlMs: config.providerTtlMs,
    },
    grpc: {
      host: config.grpcHost,
      port: config.grpcPort,
      authenticator: security.authenticator,
      tls: security.tls,
      allowUnauthenticated: security.allowUnauthenticated,
      // The API port's health says what the probes say (a load balancer may check it).
      ready: () => ops.readiness.state.ready,
      maxConnectionAgeMs: config.grpcMaxConnectionAgeMs,
      connectionLimits: connectionLimitsFromConfig(config),
      log,
    },
    deps: {
      grants: security.grants,
      cache,
      logger: log,
    },
  });
  // Async runs: records in MongoDB, queued on the JetStream work queue (any replica works any run).
  // In the background: a runs database down at start delays async runs, never RunTool.
  const asyncRuns = config.mongoUrl ? startAsyncRuns(running.dispatcher, config, log) : undefined;
  if (!asyncRuns) log.info({}, 'async runs off (no MONGO_URL): StartRun and the other run methods answer FAILED_PRECONDITION');
  log.info({ address: running.grpc.address, security: security.summary }, `dispatcher listening on ${running.grpc.address}; ${security.summary}`);
  registerDispatcherMetrics(ops.registry, running.dispatcher);
  const door = await startMcpDoor(running.dispatcher, config, log);
  door?.registerMetrics(ops.registry);
  startup.done();
  await ops.readiness.add(...dispatcherReadiness(bus));
  onShutdown(
    log,
    [
      drainStep({ ops, delayMs: config.shutdownDelayMs, logger: log, apis: [running.grpc] }),
      { name: 'ops', run: () => ops.close() },
      { name: 'mcp', run: async () => void (await door?.close()) },
      { name: 'async runs', run: async () => void (await asyncRuns?.stop()) },
      { name: 'grpc', run: () => running.close() },
      { name: 'bus', run: () => bus.close() },
      { name: 'cache', run: () => cache.close() },
      { name: 'telemetry', run: () => telemetry.shutdown() },
    ],
    { timeoutMs: config.shutdownDelayMs + 15_000 },
  );
}

/**
 * Connects the runs database (retrying every 5 s while it does not answer) and turns async runs on.
 * The queue is named after the database, so dispatchers of another database on the same NATS never
 * take these runs.
 */
function startAsyncRuns(dispatcher: Dispatcher, config: ReturnType<typeof dispatcherConfig.load>, log: ReturnType<typeof createLogger>): { stop(): Promise<void> } {
  let stopped = false;
  const url = config.mongoUrl!;
  const queueName = createHash('sha256').update(`${url.replace(/\/\/[^@/]*@/, '//')}|${config.mongoDb}`).digest('hex').slice(0, 12);
  const started = (async () => {
    for (let attempt = 1; !stopped; attempt++) {
      try {
        const store = await connectMongoRunStore({ url, dbName: config.mongoDb });
        if (stopped) return void (await store.close());
        const runs = await dispatcher.startAsyncRuns({ store, queue: 'jetstream', queueName, ...asyncRunOptionsFromConfig(config), ackWaitMs: config.runAckWaitMs, requeueAfterMs: config.runRequeueAfterMs });
        log.info({ instance: runs.instanceId, queue: queueName, concurrency: config.runConcurrency }, 'async runs on: records in MongoDB, queue on JetStream (TOOLHUB_RUNS)');
        return;
      } catch (err) {
        log.warn({ err, attempt }, 'async runs not available yet: the runs database (MONGO_URL) did not answer; retrying in 5 s');
        await new Promise((resolve) => setTimeout(resolve, 5000).unref());
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      await Promise.race([started, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    },
  };
}

main().catch((err: unknown) => {
  process.stderr.write(`dispatcher failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
