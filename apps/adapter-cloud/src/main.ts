/** adapter-cloud as its own process: HTTP APIs described by OpenAPI 3 documents, served on NATS. */
import { serveAdapter } from '@toolhub/adapter-sdk';
import { natsStatusLogger } from '@toolhub/bus';
import { createCloudAdapter, defaultConfigPath, loadCloudConfig } from '@toolhub/cloud-adapter';
import { adapterReadiness, connectNatsForStartup, drainStep, registerAdapterMetrics, StartupProgress, startOps } from '@toolhub/ops';
import { onShutdown } from '@toolhub/runtime';
import { createLogger, initTelemetry } from '@toolhub/telemetry';

import { adapterCloudConfig } from './config';

async function main(): Promise<void> {
  const config = adapterCloudConfig.load();
  const telemetry = initTelemetry({ serviceName: 'adapter-cloud' });
  const log = createLogger({ name: 'adapter-cloud', level: config.logLevel });
  // Credentials are read from the environment variables the config names, never from the document.
  const adapter = await createCloudAdapter(loadCloudConfig(config.configFile ?? defaultConfigPath()), { logger: log, env: process.env });
  for (const problem of adapter.problems) log.warn({ problem }, 'cloud adapter start-up problem');
  // Adapters publish no events: the stream is the dispatcher's and registry's (their NATS users may manage it).
  // Health and metrics answer from the start: live, not ready until NATS answers (started before
  // NATS, the adapter waits for it instead of exiting).
  const startup = new StartupProgress();
  const ops = await startOps({ app: 'adapter-cloud', config, logger: log, readiness: [startup.check], bus: startup });
  const bus = await connectNatsForStartup({ servers: config.natsUrl.split(','), name: 'toolhub-adapter-cloud', ensureStream: false, onStatus: natsStatusLogger(log) }, startup, log);
  const service = await serveAdapter(bus, adapter, { logger: log, heartbeatIntervalMs: config.heartbeatIntervalMs });
  log.info({ provider: adapter.provider, tools: (await adapter.catalog()).length }, 'adapter-cloud ready');
  registerAdapterMetrics(ops.registry, service);
  startup.done();
  await ops.readiness.add(...adapterReadiness(bus, adapter.provider));
  onShutdown(
    log,
    [
      drainStep({ ops, delayMs: config.shutdownDelayMs, logger: log }),
      { name: 'ops', run: () => ops.close() },
      { name: 'adapter', run: () => service.close() },
      { name: 'http', run: () => adapter.close() },
      { name: 'bus', run: () => bus.close() },
      { name: 'telemetry', run: () => telemetry.shutdown() },
    ],
    { timeoutMs: config.shutdownDelayMs + 15_000 },
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`adapter-cloud failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
