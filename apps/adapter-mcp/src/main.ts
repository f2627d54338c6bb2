/** adapter-mcp as its own process: the tools of configured MCP servers, served on NATS. */
import { type AdapterService, serveAdapter } from '@toolhub/adapter-sdk';
import { natsStatusLogger } from '@toolhub/bus';
import { createMcpAdapter, defaultConfigPath, loadMcpConfig } from '@toolhub/mcp-adapter';
import { adapterReadiness, connectNatsForStartup, drainStep, registerAdapterMetrics, StartupProgress, startOps } from '@toolhub/ops';
import { onShutdown } from '@toolhub/runtime';
import { createLogger, initTelemetry } from '@toolhub/telemetry';

import { adapterMcpConfig } from './config';

async function main(): Promise<void> {
  const config = adapterMcpConfig.load();
  const telemetry = initTelemetry({ serviceName: 'adapter-mcp' });
  const log = createLogger({ name: 'adapter-mcp', level: config.logLevel });
  const mcpConfig = loadMcpConfig(config.configFile ?? defaultConfigPath());
  // Adapters publish no events: the stream is the dispatcher's and registry's (their NATS users may manage it).
  // Health and metrics answer from the start: live, not ready until NATS answers (started before
  // NATS, the adapter waits for it instead of exiting).
  const startup = new StartupProgress();
  const ops = await startOps({ app: 'adapter-mcp', config, logger: log, readiness: [startup.check], bus: startup });
  const bus = await connectNatsForStartup({ servers: config.natsUrl.split(','), name: 'toolhub-adapter-mcp', ensureStream: false, onStatus: natsStatusLogger(log) }, startup, log);
  // The adapter reports catalog changes before it is served; announce them once the service exists.
  const served: { service?: AdapterService } = {};
  const adapter = createMcpAdapter(mcpConfig, { logger: log, onCatalogChanged: () => void served.service?.announce() });
  await adapter.start();
  const service = await serveAdapter(bus, adapter, { logger: log, heartbeatIntervalMs: config.heartbeatIntervalMs });
  served.service = service;
  log.info({ provider: adapter.provider, servers: mcpConfig.servers.length }, 'adapter-mcp ready');
  registerAdapterMetrics(ops.registry, service);
  startup.done();
  await ops.readiness.add(...adapterReadiness(bus, adapter.provider));
  onShutdown(
    log,
    [
      drainStep({ ops, delayMs: config.shutdownDelayMs, logger: log }),
      { name: 'ops', run: () => ops.close() },
      { name: 'adapter', run: () => service.close() },
      { name: 'mcp servers', run: () => adapter.close() },
      { name: 'bus', run: () => bus.close() },
      { name: 'telemetry', run: () => telemetry.shutdown() },
    ],
    { timeoutMs: config.shutdownDelayMs + 15_000 },
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`adapter-mcp failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
