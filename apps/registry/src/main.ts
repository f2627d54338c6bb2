/** The registry as its own process: MongoDB-backed catalog, statistics and search, admin gRPC API. */
import { NatsBus, natsStatusLogger } from '@toolhub/bus';
import { edgeSecurityFrom } from '@toolhub/auth';
import { assertSafeBind } from '@toolhub/grpc-edge';
import { Registry, searchOptions, startAdminServer } from '@toolhub/registry-core';
import { registerRegistryMetrics, registryReadiness, startOps } from '@toolhub/ops';
import { onShutdown } from '@toolhub/runtime';
import { MongoRegistryStore } from '@toolhub/store';
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
  const bus = await NatsBus.connect({ servers: config.natsUrl.split(','), name: 'toolhub-registry', onStatus: natsStatusLogger(log) });
  const registry = await Registry.start(bus, store, { logger: log, statsConsumer: config.statsConsumer, statsStartWindowMs: config.statsStartWindowMs, resync: { graceMs: config.resyncGraceMs }, search: searchOptions(config) });
  const admin = await startAdminServer(registry, {
    host: config.adminHost,
    port: config.adminPort,
    authenticator: security.authenticator,
    tls: security.tls,
    allowUnauthenticated: security.allowUnauthenticated,
    onAuditError: (err) => log.error({ err }, 'admin change made but not written to the audit log'),
  });
  log.info({ admin: admin.address, security: security.summary }, `registry ready; admin API on ${admin.address}; ${security.summary}`);
  const ops = await startOps({ app: 'registry', config, logger: log, bus, readiness: registryReadiness(registry, store), metrics: (r) => registerRegistryMetrics(r, registry) });
  onShutdown(log, [
    { name: 'ops', run: () => ops.close() },
    { name: 'admin', run: () => admin.close() },
    { name: 'registry', run: () => registry.close() },
    { name: 'bus', run: () => bus.close() },
    { name: 'store', run: () => store.close() },
    { name: 'telemetry', run: () => telemetry.shutdown() },
  ]);
}

main().catch((err: unknown) => {
  process.stderr.write(`registry failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
