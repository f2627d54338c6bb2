/** The registry as its own process: MongoDB-backed catalog, statistics and search, admin gRPC API. */
import { natsStatusLogger } from '@toolhub/bus';
import { edgeSecurityFrom } from '@toolhub/auth';
import { apiChannel, consoleApiTls, startConsoleServer } from '@toolhub/console';
import { assertSafeBind, connectionLimitsFromConfig, EdgeCounters } from '@toolhub/grpc-edge';
import { adminJsonLimitsFromConfig, Registry, searchBannerLine, searchOptions, startAdminServer } from '@toolhub/registry-core';
import { connectNatsForStartup, drainStep, registerRegistryMetrics, registryReadiness, StartupProgress, startOps } from '@toolhub/ops';
import { onShutdown } from '@toolhub/runtime';
import { MongoRegistryStore } from '@toolhub/store/mongo';
import { createLogger, initTelemetry } from '@toolhub/telemetry';

import { registryConfig } from './config';

async function main(): Promise<void> {
  const config = registryConfig.load();
  const telemetry = initTelemetry({ serviceName: 'registry' });
  const log = createLogger({ name: 'registry', level: config.logLevel });
  const security = edgeSecurityFrom(config, log);
  // Fail closed before connecting anywhere: a reachable API must check credentials.
  assertSafeBind('The registry admin API', config.adminHost, security.authenticator.enabled, security.allowUnauthenticated);
  const store = await MongoRegistryStore.connect({ url: config.mongoUrl, dbName: config.mongoDb, statsFlushMs: config.statsFlushMs });
  // Health and metrics answer from the start: live, not ready until NATS answers (started before
  // NATS, the registry waits for it instead of exiting).
  const startup = new StartupProgress();
  const ops = await startOps({ app: 'registry', config, logger: log, readiness: [startup.check], bus: startup });
  const bus = await connectNatsForStartup({ servers: config.natsUrl.split(','), name: 'toolhub-registry', onStatus: natsStatusLogger(log) }, startup, log);
  const registry = await Registry.start(bus, store, { logger: log, statsConsumer: config.statsConsumer, statsStartWindowMs: config.statsStartWindowMs, resync: { graceMs: config.resyncGraceMs }, search: searchOptions(config) });
  const adminEdge = new EdgeCounters();
  const admin = await startAdminServer(registry, {
    host: config.adminHost,
    port: config.adminPort,
    authenticator: security.authenticator,
    tls: security.tls,
    allowUnauthenticated: security.allowUnauthenticated,
    onAuditError: (err) => log.error({ err }, 'admin change made but not written to the audit log'),
    log,
    ready: () => ops.readiness.state.ready,
    maxConnectionAgeMs: config.grpcMaxConnectionAgeMs,
    connectionLimits: connectionLimitsFromConfig(config),
    edgeCounters: adminEdge,
    jsonLimits: adminJsonLimitsFromConfig(config),
  });
  log.info({ admin: admin.address, security: security.summary }, `registry ready; admin API on ${admin.address}; ${security.summary}; search: ${searchBannerLine(config)}`);
  // The console calls this registry's admin API (and, when set, a dispatcher's agent API) like any client.
  const web = config.console
    ? await startConsoleServer({
        host: config.consoleHost,
        port: config.consolePort,
        adminAddress: `127.0.0.1:${admin.port}`,
        agentAddress: config.consoleAgentUrl,
        authenticator: security.authenticator,
        allowUnauthenticated: security.allowUnauthenticated,
        allowedHosts: config.consoleAllowedHosts?.split(',').map((h) => h.trim()).filter(Boolean),
        logger: log,
        // The console dials the APIs as a client: TLS when they serve it (TOOLHUB_CONSOLE_API_*).
        ...apiChannel(consoleApiTls(config, Boolean(security.tls))),
      })
    : undefined;
  if (web) log.info({ console: web.url }, `operator console on ${web.url}`);
  registerRegistryMetrics(ops.registry, registry, adminEdge);
  startup.done();
  await ops.readiness.add(...registryReadiness(registry, store, bus));
  onShutdown(
    log,
    [
      drainStep({ ops, delayMs: config.shutdownDelayMs, logger: log, apis: [admin] }),
      { name: 'ops', run: () => ops.close() },
      { name: 'console', run: async () => void (await web?.close()) },
      { name: 'admin', run: () => admin.close() },
      { name: 'registry', run: () => registry.close() },
      { name: 'bus', run: () => bus.close() },
      { name: 'store', run: () => store.close() },
      { name: 'telemetry', run: () => telemetry.shutdown() },
    ],
    { timeoutMs: config.shutdownDelayMs + 15_000 },
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`registry failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
