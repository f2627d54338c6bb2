/**
 * The whole one-process ToolHub inside this process, composed from the libs the same way
 * apps/toolhub wires it (in-process bus, embedded registry store, registry and its admin API,
 * adapter-local, adapter-mcp with server-everything over stdio, adapter-cloud with the Petstore
 * document, dispatcher), but on free ports and in a temporary data directory, and with a close()
 * that stops everything, so a demo or a test can start and stop it freely. Needs no network.
 */
import { type AdapterService, serveAdapter, staticCatalog } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { type CloudAdapter, createCloudAdapter, defaultConfigPath as defaultCloudConfigPath, loadCloudConfig } from '@toolhub/cloud-adapter';
import { type RunningDispatcher, startDispatcher } from '@toolhub/dispatcher-core';
import { createLocalTools } from '@toolhub/local-tools';
import { createMcpAdapter, defaultConfigPath as defaultMcpConfigPath, loadMcpConfig, type McpAdapter } from '@toolhub/mcp-adapter';
import { Registry, type RunningAdminServer, startAdminServer } from '@toolhub/registry-core';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { createLogger } from '@toolhub/telemetry';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Options of {@link startInProcessToolHub}. */
export interface InProcessToolHubOptions {
  /** Mount server-everything under provider `mcp` (spawns it over stdio). @default true */
  mcp?: boolean;
  /** Mount the Petstore OpenAPI document under provider `cloud` (loading needs no network). @default true */
  cloud?: boolean;
  /** Log level of the services (logs go to stderr). @default 'error' */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'silent';
  /** Wait until the registry holds every provider's catalog (so search finds every tool). @default 10000 */
  catalogTimeoutMs?: number;
}

/** A running in-process ToolHub. */
export interface InProcessToolHub {
  /** Agent API, host:port. */
  address: string;
  /** Registry admin API, host:port. */
  adminAddress: string;
  /** `local (14 tools)`, ... */
  providers: string[];
  /** Temporary data directory (removed by close). */
  dataDir: string;
  /** Stops every part, newest first, and removes the data directory. Idempotent. */
  close(): Promise<void>;
}

/** Starts everything (see the module comment). */
export async function startInProcessToolHub(options: InProcessToolHubOptions = {}): Promise<InProcessToolHub> {
  const log = createLogger({ name: 'toolhub', level: options.logLevel ?? 'error' });
  const dataDir = mkdtempSync(join(tmpdir(), 'toolhub-demo-'));
  const root = join(dataDir, 'files');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'welcome.txt'), 'Welcome to ToolHub.\n');
  const stops: (() => Promise<unknown>)[] = [];
  const close = async (): Promise<void> => {
    while (stops.length) await stops.pop()!().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const bus = new InProcessBus();
    stops.push(() => bus.close());
    // Registry first, so it hears every adapter's first catalog announcement.
    const store = await EmbeddedRegistryStore.open({ dir: join(dataDir, 'registry') });
    stops.push(() => store.close());
    const registry = await Registry.start(bus, store, { logger: log });
    stops.push(() => registry.close());
    const admin: RunningAdminServer = await startAdminServer(registry, { host: '127.0.0.1', port: 0 });
    stops.push(() => admin.close(100));

    const expected = new Map<string, number>();
    const local = staticCatalog('local', createLocalTools({ root }));
    const localService: AdapterService = await serveAdapter(bus, { provider: 'local', ...local }, { logger: log });
    stops.push(() => localService.close());
    expected.set('local', local.tools.size);

    if (options.mcp ?? true) {
      // The adapter announces catalog changes through the service, which exists only after it starts.
      const served: { service?: AdapterService } = {};
      const mcp: McpAdapter = createMcpAdapter(loadMcpConfig(defaultMcpConfigPath()), { logger: log, onCatalogChanged: () => void served.service?.announce() });
      stops.push(() => mcp.close());
      await mcp.start();
      const service = await serveAdapter(bus, mcp, { logger: log });
      served.service = service;
      stops.push(() => service.close());
      expected.set(mcp.provider, (await mcp.catalog()).length);
    }
    if (options.cloud ?? true) {
      const cloud: CloudAdapter = await createCloudAdapter(loadCloudConfig(defaultCloudConfigPath()), { logger: log, env: process.env });
      stops.push(() => cloud.close());
      const cloudService = await serveAdapter(bus, cloud, { logger: log });
      stops.push(() => cloudService.close());
      expected.set(cloud.provider, (await cloud.catalog()).length);
    }

    const dispatcher: RunningDispatcher = await startDispatcher(bus, { grpc: { host: '127.0.0.1', port: 0 }, deps: { logger: log } });
    stops.push(() => dispatcher.close(100));

    // The registry mirrors catalogs asynchronously; search reads the mirror.
    const deadline = Date.now() + (options.catalogTimeoutMs ?? 10_000);
    for (;;) {
      const counts = await Promise.all([...expected].map(async ([p, n]) => (await store.listTools({ provider: p })).length >= n));
      if (counts.every(Boolean)) break;
      if (Date.now() > deadline) throw new Error(`the registry did not receive every catalog within ${options.catalogTimeoutMs ?? 10_000} ms`);
      await new Promise((r) => setTimeout(r, 25));
    }
    return {
      address: dispatcher.grpc.address,
      adminAddress: admin.address,
      providers: [...expected].map(([p, n]) => `${p} (${n} tools)`),
      dataDir,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
