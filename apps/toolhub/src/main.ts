/**
 * One-process mode (the embedded default): dispatcher, registry (embedded store), adapter-local,
 * adapter-mcp and adapter-cloud in one Node process on the in-process bus. Needs nothing but Node: `npm start`.
 */
import { type AdapterService, serveAdapter, staticCatalog } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { type CloudAdapter, createCloudAdapter, defaultConfigPath as defaultCloudConfigPath, loadCloudConfig } from '@toolhub/cloud-adapter';
import { edgeSecurityFrom } from '@toolhub/auth';
import { apiChannel, consoleApiTls, startConsoleServer } from '@toolhub/console';
import { argumentOptionsFromConfig, asyncRunOptionsFromConfig, startDispatcher } from '@toolhub/dispatcher-core';
import { startMcpDoor } from '@toolhub/mcp-door';
import { assertSafeBind, connectionLimitsFromConfig, EdgeCounters } from '@toolhub/grpc-edge';
import { createLocalTools, ToolWorkerPool } from '@toolhub/local-tools';
import { createMcpAdapter, defaultConfigPath, loadMcpConfig, type McpAdapter } from '@toolhub/mcp-adapter';
import { adminJsonLimitsFromConfig, Registry, searchBannerLine, searchOptions, startAdminServer } from '@toolhub/registry-core';
import { dispatcherReadiness, drainStep, registerDispatcherMetrics, registerRegistryMetrics, startOps } from '@toolhub/ops';
import { onShutdown, type ShutdownStep } from '@toolhub/runtime';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { openEmbeddedRunStore } from '@toolhub/run-store/embedded';
import { createLogger, initTelemetry } from '@toolhub/telemetry';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { toolhubConfig } from './config';

const WELCOME = `Welcome to ToolHub.
This file lives in the local provider's file root; agents can read it with file_read.
`;


/**
 * Bounds of what one-process mode retains per call (issue 12: memory flat under sustained use);
 * the apps/toolhub README lists them. See where the bus and the store are created for why.
 */
const ONE_PROCESS_BOUNDS = {
  /** Store: how long an event id is remembered (one in-memory claim, ~80 bytes, per event). */
  dedupWindowMs: 2 * 60_000,
  /** Bus: how long a msgId is remembered for de-duplication (one Map entry, ~100 bytes, per event). */
  duplicateWindowMs: 5_000,
  /**
   * Store: how often NeDB's append-only files are rewritten compacted. Every statistics write
   * appends the tool's whole document (~100 bytes per call on disk); the live data is small (the
   * catalog and one statistics document per tool), so compacting every minute is cheap.
   */
  compactionIntervalMs: 60_000,
  /** Bus: acknowledged events kept (none: no durable is created after start-up in this mode). */
  maxAckedEvents: 0,
} as const;
async function main(): Promise<void> {
  const config = toolhubConfig.load();
  const telemetry = initTelemetry({ serviceName: 'toolhub' });
  const log = createLogger({ name: 'toolhub', level: config.logLevel });
  const security = edgeSecurityFrom(config, log);
  // Fail closed before starting anything: both APIs listen on grpcHost.
  assertSafeBind('ToolHub', config.grpcHost, security.authenticator.enabled, security.allowUnauthenticated);
  const edge = {
    authenticator: security.authenticator,
    tls: security.tls,
    allowUnauthenticated: security.allowUnauthenticated,
    maxConnectionAgeMs: config.grpcMaxConnectionAgeMs,
    connectionLimits: connectionLimitsFromConfig(config),
  };
  const adminEdge = new EdgeCounters();
  const dataDir = resolve(config.dataDir);
  const root = resolve(config.root ?? join(dataDir, 'files'));
  mkdirSync(root, { recursive: true });
  if (!existsSync(join(root, 'welcome.txt'))) writeFileSync(join(root, 'welcome.txt'), WELCOME);

  // The registry's consumer is the only durable and exists before the first event, so events it
  // acknowledged are of no further use: keeping 100,000 of them (the bus default) held ~0.5 KB per
  // call. Unacknowledged events are never discarded (the bus refuses new ones when 100,000 wait).
  // Each event is published once (memory durability, no outbox), so a short msgId window suffices;
  // the store's claims de-duplicate redeliveries anyway.
  const bus = new InProcessBus({ maxAckedEvents: ONE_PROCESS_BOUNDS.maxAckedEvents, duplicateWindowMs: ONE_PROCESS_BOUNDS.duplicateWindowMs });
  const steps: ShutdownStep[] = [];
  // Registry first, so it hears every adapter's first catalog announcement.
  // Event ids are remembered for 2 min, in memory, not the store's 24 h in a NeDB file: the
  // in-process bus holds events in memory only and the dispatcher publishes each once (memory
  // durability, no outbox), so an event comes again only as a redelivery after the registry's batch
  // failed (backoff 250 ms doubling to 30 s: within 2 min unless it fails about 9 times in a row), never
  // after a restart. NeDB claims cost ~200 bytes of memory per call plus two appends to a file;
  // 24 h, then 10 min of them made RSS grow with use (issue 12).
  const store = await EmbeddedRegistryStore.open({
    dir: join(dataDir, 'registry'),
    dedupWindowMs: ONE_PROCESS_BOUNDS.dedupWindowMs,
    claims: 'memory',
    compactionIntervalMs: ONE_PROCESS_BOUNDS.compactionIntervalMs,
    statsFlushMs: config.statsFlushMs,
  });
  const registry = await Registry.start(bus, store, { logger: log, search: searchOptions(config), resync: { graceMs: config.resyncGraceMs } });
  const admin = await startAdminServer(registry, { host: config.grpcHost, port: config.adminPort, ...edge, log, edgeCounters: adminEdge, jsonLimits: adminJsonLimitsFromConfig(config) });

  // CPU-heavy local tools run on worker threads, so one slow call cannot freeze this whole process.
  const toolPool = ToolWorkerPool.create();
  toolPool.warm();
  const local = staticCatalog('local', createLocalTools({ root, toolPool }));
  const localService = await serveAdapter(bus, { provider: 'local', ...local }, { logger: log });
  const providers = [`local (${local.tools.size} tools)`];

  let mcp: McpAdapter | undefined;
  let mcpService: AdapterService | undefined;
  if (config.mcp) {
    mcp = createMcpAdapter(loadMcpConfig(config.mcpConfig ?? defaultConfigPath()), { logger: log, onCatalogChanged: () => void mcpService?.announce() });
    await mcp.start();
    mcpService = await serveAdapter(bus, mcp, { logger: log });
    providers.push(`${mcp.provider} (${(await mcp.catalog()).length} tools from ${mcp.status().length} MCP server(s))`);
  }

  let cloud: CloudAdapter | undefined;
  let cloudService: AdapterService | undefined;
  if (config.cloud) {
    cloud = await createCloudAdapter(loadCloudConfig(config.cloudConfig ?? defaultCloudConfigPath()), { logger: log, env: process.env });
    cloudService = await serveAdapter(bus, cloud, { logger: log });
    providers.push(`${cloud.provider} (${(await cloud.catalog()).length} tools from OpenAPI)`);
  }

  // Async runs: records in <data>/runs/runs.db, which is also their queue (runs left by a stopped
  // process are taken again at start).
  const runStore = await openEmbeddedRunStore({ dir: join(dataDir, 'runs'), compactionIntervalMs: ONE_PROCESS_BOUNDS.compactionIntervalMs });
  const running = await startDispatcher(bus, {
    dispatcher: argumentOptionsFromConfig(config),
    grpc: { host: config.grpcHost, port: config.grpcPort, ...edge },
    deps: { logger: log, grants: security.grants, asyncRuns: { store: runStore, queue: 'local', ...asyncRunOptionsFromConfig(config) } },
  });
  const address = running.grpc.address;
  const door = await startMcpDoor(running.dispatcher, config, log);
  const web = config.console
    ? await startConsoleServer({
        host: config.consoleHost,
        port: config.consolePort,
        adminAddress: `127.0.0.1:${admin.port}`,
        agentAddress: `127.0.0.1:${running.grpc.port}`,
        authenticator: security.authenticator,
        allowUnauthenticated: security.allowUnauthenticated,
        allowedHosts: config.consoleAllowedHosts?.split(',').map((h) => h.trim()).filter(Boolean),
        logger: log,
        // The console dials the APIs as a client: TLS when they serve it (TOOLHUB_CONSOLE_API_*).
        ...apiChannel(consoleApiTls(config, Boolean(security.tls))),
      })
    : undefined;
  const ops = await startOps({
    app: 'toolhub',
    config,
    logger: log,
    readiness: dispatcherReadiness(bus),
    metrics: (r) => (registerDispatcherMetrics(r, running.dispatcher, [adminEdge]), registerRegistryMetrics(r, registry), door?.registerMetrics(r)),
  });
  process.stdout.write(
    [
      'ToolHub is running in one process (dispatcher, registry, adapter-local, adapter-mcp, adapter-cloud; in-process bus).',
      `  agent API:  ${address}  (toolhub.v1.ToolHub; health and reflection on)`,
      `  admin API:  ${admin.address}  (toolhub.v1.RegistryAdmin)`,
      `  MCP:        ${door ? `${door.address}  (Streamable HTTP${door.door.options.stateless ? '' : `; older hosts: HTTP+SSE at ${door.door.sseAddress}`}; stdio: npm run toolhub -- mcp)` : 'off (TOOLHUB_MCP_DOOR=false)'}`,
      `  console:    ${web ? `${web.url}  (operator console in the browser${web.uiBuiltMs ? `; bundle built at start in ${web.uiBuiltMs} ms` : ''})` : 'off (TOOLHUB_CONSOLE=0)'}`,
      `  health:     ${ops.health?.address ?? 'off'}  (grpc.health.v1; "readiness", "liveness")   metrics: ${ops.metrics?.url ?? 'off'}`,
      `  providers:  ${providers.join(', ')}`,
      `  security:   ${security.summary}`,
      `  search:     ${searchBannerLine(config)}`,
      `  data:       ${dataDir}   file root: ${root}`,
      'Try, in another shell:',
      `  grpcurl -plaintext -d '{"provider":"local","name":"file_read","arguments":{"path":"welcome.txt"}}' ${address} toolhub.v1.ToolHub/RunTool`,
      `  grpcurl -plaintext -d '{"queries":["echo a message"]}' ${address} toolhub.v1.ToolHub/SearchTools`,
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );

  steps.push(
    drainStep({ ops, delayMs: config.shutdownDelayMs, logger: log, apis: [running.grpc, admin] }),
    { name: 'ops', run: () => ops.close() },
    { name: 'mcp', run: async () => void (await door?.close()) },
    { name: 'console', run: async () => void (await web?.close()) },
    { name: 'grpc', run: () => running.close() },
    { name: 'adapter-local', run: () => localService.close() },
    { name: 'tool workers', run: () => toolPool.close() },
    { name: 'adapter-mcp', run: async () => void (await mcpService?.close()) },
    { name: 'mcp servers', run: async () => void (await mcp?.close()) },
    { name: 'adapter-cloud', run: async () => void (await cloudService?.close()) },
    { name: 'cloud http', run: async () => void (await cloud?.close()) },
    { name: 'admin', run: () => admin.close() },
    { name: 'registry', run: () => registry.close() },
    { name: 'store', run: () => store.close() },
    { name: 'bus', run: () => bus.close() },
    { name: 'telemetry', run: () => telemetry.shutdown() },
  );
  onShutdown(log, steps, { timeoutMs: config.shutdownDelayMs + 15_000 });
}

main().catch((err: unknown) => {
  process.stderr.write(`ToolHub failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
