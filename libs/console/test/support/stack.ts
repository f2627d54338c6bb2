/**
 * A whole ToolHub in this process for console tests: in-process bus, embedded store, registry with
 * its admin gRPC API, an adapter with a few tools, the dispatcher's agent gRPC API with async runs
 * (embedded run store, as in the one-process mode), and the console
 * in front of both — every hop real, only the bus in-process (as in the one-process `npm start`).
 */
import { type AdapterService, serveAdapter, staticCatalog, textResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import { Authenticator, Grants, hashApiKey } from '@toolhub/auth';
import { InProcessBus } from '@toolhub/bus';
import { ToolHubError } from '@toolhub/contracts';
import { type RunningConsole, startConsoleServer } from '@toolhub/console';
import { type RunningDispatcher, startDispatcher } from '@toolhub/dispatcher-core';
import { Registry, type RunningAdminServer, startAdminServer } from '@toolhub/registry-core';
import { openEmbeddedRunStore } from '@toolhub/run-store/embedded';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const OPERATOR_KEY = 'ops-key-0123456789abcdef';
export const AGENT_KEY = 'agent-key-0123456789abcdef';
export const ADMIN_KEY = 'admin-key-0123456789abcdef';

const schema = {
  type: 'object',
  properties: { text: { type: 'string', description: 'The text to echo back.' }, times: { type: 'integer', minimum: 1, maximum: 5, description: 'How often.' } },
  required: ['text'],
};
/**
 * Lets a test step `slow_export` runs on: a run with `label` writes part i only after the test
 * called `release(label)` i times, so a test sees each progress update without timing guesses.
 * Runs whose signal was aborted (cancelled at the adapter) are recorded in `aborted`.
 */
export class ExportGate {
  private readonly allowed = new Map<string, number>();
  private readonly waiters = new Set<() => void>();
  readonly aborted = new Set<string>();

  /** Resolves once a run of `label` was aborted at the adapter. */
  async whenAborted(label: string): Promise<void> {
    while (!this.aborted.has(label)) await new Promise<void>((resolve) => this.abortWaiters.add(resolve));
  }
  private readonly abortWaiters = new Set<() => void>();

  release(label: string): void {
    this.allowed.set(label, (this.allowed.get(label) ?? 0) + 1);
    for (const w of [...this.waiters]) w();
  }

  /** Resolves once `label` has been released `part` times; rejects when `signal` aborts. */
  async part(label: string, part: number, signal: AbortSignal): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if ((this.allowed.get(label) ?? 0) < part) return;
        done();
        resolve();
      };
      const abort = () => {
        this.aborted.add(label);
        for (const w of [...this.abortWaiters]) w();
        this.abortWaiters.clear();
        done();
        reject(ToolHubError.failed(`export ${label} aborted at part ${part}`));
      };
      const done = () => {
        this.waiters.delete(check);
        signal.removeEventListener('abort', abort);
      };
      this.waiters.add(check);
      signal.addEventListener('abort', abort, { once: true });
      if (signal.aborted) abort();
      else check();
    });
  }
}
export const exportGate = new ExportGate();

export const STACK_TOOLS: ToolDefinition<never>[] = [
  { name: 'echo_text', path: 'text', description: 'Echoes text back, a number of times.', inputSchema: schema, run: async (a: { text?: string; times?: number }) => textResult((a.text ?? '').repeat(a.times ?? 1)) },
  { name: 'reverse_text', path: 'text/transform', description: 'Reverses the characters of a text.', inputSchema: schema, run: async (a: { text?: string }) => textResult([...(a.text ?? '')].reverse().join('')) },
  {
    name: 'flaky_lookup',
    path: 'data',
    description: 'Looks a key up in a backend that fails every call.',
    inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
    run: async () => {
      throw ToolHubError.failed('the lookup backend answered 500');
    },
  },
  {
    name: 'slow_export',
    path: 'data',
    description: 'Exports a data set in parts, reporting progress and a log line per part; slow (each part waits for the backend).',
    inputSchema: {
      type: 'object',
      properties: {
        label: { type: 'string', description: 'Name of the export.' },
        parts: { type: 'integer', minimum: 1, maximum: 10, description: 'How many parts to write.' },
        failAtPart: { type: 'integer', minimum: 1, description: 'Fail (backend error) when this part is due instead of writing it.' },
      },
      required: ['label', 'parts'],
    },
    run: async (a: { label: string; parts: number; failAtPart?: number }, ctx) => {
      ctx.progress?.({ progress: 0, total: a.parts, message: `waiting for part 1 of ${a.parts}` });
      for (let i = 1; i <= a.parts; i++) {
        await exportGate.part(a.label, i, ctx.signal);
        if (i === a.failAtPart) throw ToolHubError.failed(`the export backend refused part ${i} of ${a.label}`);
        ctx.log?.(`${a.label}: part ${i} written`);
        ctx.progress?.({ progress: i, total: a.parts, message: `part ${i} of ${a.parts} written` });
      }
      return textResult(`exported ${a.parts} parts of ${a.label}`);
    },
  },
];

/** The grants of the stack with auth: agents see every tool but the text transforms. */
export const STACK_GRANTS = { roles: { agent: { allow: ['*'], deny: ['local:text/transform/**'] }, operator: { allow: ['*'] }, admin: { allow: ['*'] } } };

export interface Stack {
  console: RunningConsole;
  admin: RunningAdminServer;
  dispatcher: RunningDispatcher;
  registry: Registry;
  store: EmbeddedRegistryStore;
  close(): Promise<void>;
}

export interface StackOptions {
  /** Require API keys (operator, agent and admin keys above). @default false: local mode */
  auth?: boolean;
  /** Directory of a built bundle; default: the console finds (or builds) libs/console/dist/ui. */
  uiDir?: string;
  /** Extra tools of a second provider "bulk" (the catalog scale test). */
  bulkTools?: ToolDefinition<never>[];
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), 'toolhub-console-'));
  let authenticator: Authenticator | undefined;
  let grants: Grants | undefined;
  if (options.auth) {
    writeFileSync(
      join(dir, 'keys.json'),
      JSON.stringify({
        keys: [
          { name: 'ops-alice', sha256: hashApiKey(OPERATOR_KEY), roles: ['operator'] },
          { name: 'fleet', sha256: hashApiKey(AGENT_KEY), roles: ['agent'] },
          { name: 'root', sha256: hashApiKey(ADMIN_KEY), roles: ['admin'] },
        ],
      }),
    );
    authenticator = Authenticator.create({ apiKeysPath: join(dir, 'keys.json') });
    // Agents do not see the text transforms: the access page and "view as" in the search playground show it.
    writeFileSync(join(dir, 'grants.json'), JSON.stringify(STACK_GRANTS));
    grants = Grants.load(join(dir, 'grants.json'));
  }
  const bus = new InProcessBus();
  const store = await EmbeddedRegistryStore.open({ dir: join(dir, 'registry') });
  const registry = await Registry.start(bus, store);
  const admin = await startAdminServer(registry, { port: 0, authenticator });
  const adapters: AdapterService[] = [await serveAdapter(bus, { provider: 'local', ...staticCatalog('local', STACK_TOOLS) })];
  if (options.bulkTools) adapters.push(await serveAdapter(bus, { provider: 'bulk', ...staticCatalog('bulk', options.bulkTools) }));
  // Async runs as in the one-process mode: the embedded run store is the queue.
  const runStore = await openEmbeddedRunStore({ dir: join(dir, 'runs') });
  const dispatcher = await startDispatcher(bus, { grpc: { port: 0, authenticator }, dispatcher: { warmCoreTools: false, maxAttempts: 1 }, deps: { grants, asyncRuns: { store: runStore, queue: 'local', retentionMs: 3_600_000 } } });
  const web = await startConsoleServer({ port: 0, adminAddress: admin.address, agentAddress: dispatcher.grpc.address, authenticator, uiDir: options.uiDir });
  const want = STACK_TOOLS.length + (options.bulkTools?.length ?? 0);
  const end = Date.now() + 60_000;
  while ((await store.listTools()).length < want && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return {
    console: web,
    admin,
    dispatcher,
    registry,
    store,
    async close() {
      await web.close();
      await dispatcher.close(100);
      for (const a of adapters) await a.close();
      await admin.close(100);
      await registry.close();
      await store.close();
      await bus.close();
      authenticator?.close();
      grants?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
