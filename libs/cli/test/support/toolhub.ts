/**
 * A whole ToolHub in this process, as the one-process mode wires it: in-process bus, embedded
 * registry store, registry + admin API, the local tools plus a small `test` provider, and the
 * dispatcher's gRPC API, both on free ports. close() stops everything and removes the data.
 */
import { type AdapterService, serveAdapter, staticCatalog, textResult, toolError, type ToolDefinition } from '@toolhub/adapter-sdk';
import type { Authenticator } from '@toolhub/auth';
import { InProcessBus } from '@toolhub/bus';
import { type RunningDispatcher, startDispatcher } from '@toolhub/dispatcher-core';
import type { ServerTlsOptions } from '@toolhub/grpc-edge';
import { createLocalTools } from '@toolhub/local-tools';
import { Registry, type RegistryOptions, type RunningAdminServer, startAdminServer } from '@toolhub/registry-core';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { openEmbeddedRunStore } from '@toolhub/run-store/embedded';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@toolhub/test-harness';

export interface TestHub {
  address: string;
  adminAddress: string;
  store: EmbeddedRegistryStore;
  /** The in-process bus, for tests that start an extra adapter. */
  bus: InProcessBus;
  close(): Promise<void>;
}

/** Tools of provider `test`: one that always reports a failure, one that answers, one that never finishes in time. */
const testTools: ToolDefinition<never>[] = [
  {
    name: 'weather_lookup',
    path: 'weather',
    description: 'Looks the weather up at an upstream service that is always down in tests.',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    run: async (a: { city: string }) => toolError(`the weather service has no data for ${a.city}; try again later`),
  },
  {
    name: 'greet',
    path: 'social',
    description: 'Greets someone by name.',
    inputSchema: { type: 'object', properties: { who: { type: 'string' }, times: { type: 'integer' } }, required: ['who'] },
    run: async (a: { who: string; times?: number }, ctx) => {
      const times = a.times ?? 1;
      // Progress only reaches a caller that listens (toolhub run --progress).
      for (let i = 1; i <= times; i++) ctx.progress?.({ progress: i, total: times, message: `greeting ${a.who}` });
      ctx.log?.(`greeted ${a.who} ${times} times`);
      return textResult(Array.from({ length: times }, () => `hello ${a.who}`).join('\n'));
    },
  },
  {
    name: 'slow_report',
    path: 'reports',
    description: 'Builds a report slowly: it finishes only when its deadline passes.',
    inputSchema: { type: 'object', properties: {} },
    run: (_a: never, ctx) =>
      new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true })),
  },
];

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  await waitFor(check, { timeoutMs, intervalMs: 20, message: what });
}

/** Options of {@link startTestHub}. */
export interface TestHubOptions {
  /** Learning from use in the registry's search. @default true */
  searchLearning?: boolean;
  /** Credentials checked on both APIs (as one-process mode applies the same settings to both). @default none: local mode */
  authenticator?: Authenticator;
  /** TLS of both APIs. @default plaintext */
  tls?: ServerTlsOptions;
  /** The registry's search options (an embeddings endpoint, ...); `searchLearning` still applies. */
  search?: RegistryOptions['search'];
}

export async function startTestHub(options: TestHubOptions = {}): Promise<TestHub> {
  const edge = { authenticator: options.authenticator, tls: options.tls };
  const dir = mkdtempSync(join(tmpdir(), 'toolhub-cli-test-'));
  const root = join(dir, 'files');
  mkdirSync(root);
  writeFileSync(join(root, 'welcome.txt'), 'Welcome to ToolHub.\n');
  const bus = new InProcessBus();
  const store = await EmbeddedRegistryStore.open({ dir: join(dir, 'registry') });
  const registry = await Registry.start(bus, store, { search: { ...options.search, ...(options.searchLearning === false ? { learning: false } : {}) } });
  const admin: RunningAdminServer = await startAdminServer(registry, { port: 0, ...edge });
  const adapters: AdapterService[] = [
    await serveAdapter(bus, { provider: 'local', ...staticCatalog('local', createLocalTools({ root })) }),
    await serveAdapter(bus, { provider: 'test', ...staticCatalog('test', testTools) }),
  ];
  const dispatcher: RunningDispatcher = await startDispatcher(bus, {
    grpc: { port: 0, ...edge },
    dispatcher: { warmCoreTools: false },
    // Async runs as the one-process mode keeps them (toolhub run --async, toolhub runs ...).
    deps: { asyncRuns: { store: await openEmbeddedRunStore({ dir: join(dir, 'runs') }), queue: 'local' } },
  });
  await eventually(async () => (await store.listTools({ provider: 'test' })).length === testTools.length && (await store.listTools({ provider: 'local' })).length > 0, 'the catalogs in the registry');
  return {
    address: dispatcher.grpc.address,
    adminAddress: admin.address,
    store,
    bus,
    async close() {
      await dispatcher.close(100);
      for (const a of adapters) await a.close();
      await admin.close(100);
      await registry.close();
      await store.close();
      await bus.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
