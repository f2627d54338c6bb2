/** adapter-mcp as its own process: the tools of configured MCP servers, served on NATS. */
import { type AdapterService, serveAdapter } from '@toolhub/adapter-sdk';
import { NatsBus, natsStatusLogger } from '@toolhub/bus';
import { createMcpAdapter, defaultConfigPath, loadMcpConfig } from '@toolhub/mcp-adapter';
import { adapterReadiness, registerAdapterMetrics, startOps } from '@toolhub/ops';
import { onShutdown } from '@toolhub/runtime';
import { createLogger, initTelemetry } from '@toolhub/telemetry';

import { adapterMcpConfig } from './config';

async function main(): Promise<void> {
  const config = adapterMcpConfig.load();
  const telemetry = initTelemetry({ serviceName: 'adapter-mcp' });
  const log = createLogger({ name: 'adapter-mcp', level: config.logLevel });
  const mcpConfig = loadMcpConfig(config.configFile ?? defaultConfigPath());
  // Adapters publish no events: the stream is the dispatcher's and registry's (their NATS users may manage it).
  const bus = await NatsBus.connect({ servers: config.natsUrl.split(','), name: 'toolhub-adapter-mcp', ensureStream: false, onStatus: natsStatusLogger(log) });
  // The adapter reports catalog changes before it is served; announce them once the service exists.
  const served: { service?: AdapterService } = {};
  const adapter = createMcpAdapter(mcpConfig, { logger: log, onCatalogChanged: () => void served.service?.announce() });
  await adapter.start();
  const service = await serveAdapter(bus, adapter, { logger: log });
  served.service = service;
  log.info({ provider: adapter.provider, servers: mcpConfig.servers.length }, 'adapter-mcp ready');
  const ops = await startOps({ app: 'adapter-mcp', config, logger: log, bus, readiness: adapterReadiness(bus, adapter.provider), metrics: (r) => registerAdapterMetrics(r, service) });
  onShutdown(log, [
    { name: 'ops', run: () => ops.close() },
    { name: 'adapter', run: () => service.close() },
    { name: 'mcp servers', run: () => adapter.close() },
    { name: 'bus', run: () => bus.close() },
    { name: 'telemetry', run: () => telemetry.shutdown() },
  ]);
}

main().catch((err: unknown) => {
  process.stderr.write(`adapter-mcp failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
