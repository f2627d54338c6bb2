/**
 * The stack the door tests share: the in-process bus, a `local` adapter with a few tools (one
 * hidden by grants, one slow that records its cancellation), a dispatcher with its gRPC edge, API
 * keys + grants, and the MCP door on a free loopback port.
 */
import { type AdapterService, serveAdapter, staticCatalog, textResult, toolError, type ToolDefinition } from '@toolhub/adapter-sdk';
import { Authenticator, Grants, hashApiKey } from '@toolhub/auth';
import { InProcessBus } from '@toolhub/bus';
import { type DispatcherOptions, type RunningDispatcher, startDispatcher } from '@toolhub/dispatcher-core';
import { McpDoor, type McpDoorOptions } from '@toolhub/mcp-door';
import { Registry } from '@toolhub/registry-core';
import { openEmbeddedRunStore } from '@toolhub/run-store/embedded';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const AGENT_KEY = 'agent-secret-key';
export const OPERATOR_ONLY_KEY = 'operator-only-key';
export const AGENT_B_KEY = 'agent-b-secret-key';

export interface SlowState {
  signal?: AbortSignal;
  runs: number;
  counted: number;
  /** progress_steps waits on this after each step it reports (a test moves it on). */
  nextStep?: () => Promise<void>;
}

export function doorTools(slow: SlowState): ToolDefinition<never>[] {
  const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
  return [
    { name: 'echo_text', path: 'text', description: 'Echoes the text back unchanged.', inputSchema: text, run: async (a: { text: string }) => textResult(a.text) },
    {
      name: 'add_numbers',
      path: 'math',
      description: 'Adds two numbers and returns the sum as structured output.',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      run: async (x: { a: number; b: number }) => textResult(String(x.a + x.b), { sum: x.a + x.b }),
    },
    { name: 'count_calls', path: 'math', description: 'Counts how often it ran (not idempotent).', inputSchema: { type: 'object', properties: {} }, run: async () => textResult(String(++slow.counted)) },
    { name: 'always_fails', path: 'text', description: 'Reports a failure.', inputSchema: text, run: async () => toolError('the thing is broken; try echo_text') },
    { name: 'launch_codes', path: 'secret', description: 'Returns the secret launch codes.', inputSchema: { type: 'object', properties: {} }, run: async () => textResult('0000') },
    {
      name: 'progress_steps',
      path: 'time',
      description: 'Works through three steps, reporting progress and a log line for each.',
      inputSchema: { type: 'object', properties: {} },
      run: async (_a, ctx) => {
        for (let i = 1; i <= 3; i++) {
          ctx.progress?.({ progress: i, total: 3, message: `step ${i} of 3` });
          ctx.log?.(`finished step ${i}`);
          await (slow.nextStep?.() ?? Promise.resolve());
        }
        return textResult(ctx.progress ? 'three steps, watched' : 'three steps');
      },
    },
    {
      name: 'slow_wait',
      path: 'time',
      description: 'Waits a long time, then says done.',
      inputSchema: { type: 'object', properties: {} },
      run: (_a, ctx) => {
        slow.signal = ctx.signal;
        slow.runs++;
        return new Promise((resolve) => {
          const t = setTimeout(() => resolve(textResult('done')), 60_000);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(t);
            resolve(textResult('aborted'));
          });
        });
      },
    },
  ];
}

export interface DoorStack {
  bus: InProcessBus;
  registry: Registry;
  adapter: AdapterService;
  running: RunningDispatcher;
  door: McpDoor;
  authenticator: Authenticator;
  slow: SlowState;
  close(): Promise<void>;
}

/**
 * Starts the stack; `auth: false` is local mode (no credentials, no grants). `runs`: async runs on
 * (the one-process arrangement: the embedded run store is the queue), so the door offers MCP tasks.
 */
export async function startDoorStack(options: McpDoorOptions = {}, auth = true, dispatcher: DispatcherOptions = {}, runs = false): Promise<DoorStack> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-door-'));
  const keysFile = join(dir, 'keys.json');
  writeFileSync(keysFile, JSON.stringify({ keys: [{ name: 'agent-a', sha256: hashApiKey(AGENT_KEY), roles: ['agent'] }, { name: 'ops', sha256: hashApiKey(OPERATOR_ONLY_KEY), roles: ['operator'] }, { name: 'agent-b', sha256: hashApiKey(AGENT_B_KEY), roles: ['agent'] }] }));
  const grantsFile = join(dir, 'grants.json');
  writeFileSync(grantsFile, JSON.stringify({ roles: { agent: { allow: ['local:*'], deny: ['local:secret/**'] }, operator: { allow: ['*'] } } }));
  const authenticator = auth ? Authenticator.create({ apiKeysPath: keysFile }) : Authenticator.disabled();
  const grants = auth ? Grants.load(grantsFile) : undefined;
  const slow: SlowState = { runs: 0, counted: 0 };
  const bus = new InProcessBus();
  // The registry first, so it hears the adapter's first catalog announcement (search, preload set).
  const store = await EmbeddedRegistryStore.open({ dir: join(dir, 'registry'), claims: 'memory' });
  const registry = await Registry.start(bus, store, {});
  const adapter = await serveAdapter(bus, { provider: 'local', ...staticCatalog('local', doorTools(slow)) });
  const asyncRuns = runs ? { store: await openEmbeddedRunStore({ dir: join(dir, 'runs') }), queue: 'local' as const, retentionMs: 3_600_000 } : undefined;
  const running = await startDispatcher(bus, { grpc: { port: 0, authenticator }, dispatcher: { warmCoreTools: false, ...dispatcher }, deps: { grants, asyncRuns } });
  const door = await McpDoor.start(running.dispatcher, { port: 0, preloadTimeoutMs: 500, ...options }, { authenticator });
  return {
    bus,
    registry,
    adapter,
    running,
    door,
    authenticator,
    slow,
    async close() {
      await door.close();
      await running.close(100);
      await adapter.close();
      grants?.close();
      await registry.close();
      await store.close();
      await bus.close();
    },
  };
}
