/** adapter-local as its own process: TypeScript tools served on NATS under provider `local`. */
import { serveAdapter, staticCatalog } from '@toolhub/adapter-sdk';
import { natsStatusLogger } from '@toolhub/bus';
import { createLocalTools, ToolWorkerPool } from '@toolhub/local-tools';
import { adapterReadiness, connectNatsForStartup, drainStep, registerAdapterMetrics, StartupProgress, startOps } from '@toolhub/ops';
import { onShutdown } from '@toolhub/runtime';
import { createLogger, initTelemetry } from '@toolhub/telemetry';
import { mkdirSync } from 'node:fs';

import { adapterLocalConfig } from './config';

async function main(): Promise<void> {
  const config = adapterLocalConfig.load();
  const telemetry = initTelemetry({ serviceName: 'adapter-local' });
  const log = createLogger({ name: 'adapter-local', level: config.logLevel });
  mkdirSync(config.root, { recursive: true });
  // Adapters publish no events: the stream is the dispatcher's and registry's (their NATS users may manage it).
  // Health and metrics answer from the start: live, not ready until NATS answers (started before
  // NATS, the adapter waits for it instead of exiting).
  const startup = new StartupProgress();
  const ops = await startOps({ app: 'adapter-local', config, logger: log, readiness: [startup.check], bus: startup });
  const bus = await connectNatsForStartup({ servers: config.natsUrl.split(','), name: 'toolhub-adapter-local', ensureStream: false, onStatus: natsStatusLogger(log) }, startup, log);
  // CPU-heavy tools run on worker threads, each call bounded by its deadline (warm: no start-up on the first calls).
  const toolPool = ToolWorkerPool.create();
  toolPool.warm();
  const catalog = staticCatalog('local', createLocalTools({ root: config.root, maxRootBytes: config.maxRootBytes, maxRootFiles: config.maxRootFiles, toolPool }));
  const service = await serveAdapter(bus, { provider: 'local', ...catalog }, { logger: log, heartbeatIntervalMs: config.heartbeatIntervalMs });
  log.info({ provider: 'local', instanceId: service.instanceId, tools: catalog.tools.size, root: config.root }, 'adapter-local ready');
  registerAdapterMetrics(ops.registry, service);
  startup.done();
  await ops.readiness.add(...adapterReadiness(bus, 'local'));
  onShutdown(
    log,
    [
      drainStep({ ops, delayMs: config.shutdownDelayMs, logger: log }),
      { name: 'ops', run: () => ops.close() },
      { name: 'adapter', run: () => service.close() },
      { name: 'tool workers', run: () => toolPool.close() },
      { name: 'bus', run: () => bus.close() },
      { name: 'telemetry', run: () => telemetry.shutdown() },
    ],
    { timeoutMs: config.shutdownDelayMs + 15_000 },
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`adapter-local failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
