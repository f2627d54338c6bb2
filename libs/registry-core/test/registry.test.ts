/**
 * The registry in one process, as the one-process mode runs it: in-process bus, embedded store,
 * a real adapter, the dispatcher's gRPC API and the admin gRPC API.
 */
import { credentials, Metadata, status } from '@grpc/grpc-js';
import { type AdapterService, serveAdapter, staticCatalog, textResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { ErrorInfo, GRPC_ERROR_TRAILER, Importance, PreloadFormat, RegistryAdminClient, ToolHubError, type ToolInfo } from '@toolhub/contracts';
import { type RunningDispatcher, startDispatcher } from '@toolhub/dispatcher-core';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { connectClient, type TestClient } from '../../dispatcher-core/test/support/grpc-client';
import { Registry, type RunningAdminServer, startAdminServer } from '../src';
import { waitFor } from '@toolhub/test-harness';

type Admin = Record<string, (req: unknown) => Promise<Record<string, unknown>>>;

function adminClient(address: string): { call: Admin; close(): void } {
  const raw = new RegistryAdminClient(address, credentials.createInsecure()) as unknown as Record<string, (...a: unknown[]) => void> & { close(): void };
  const call = new Proxy({} as Admin, {
    get: (_t, method: string) => (req: unknown) =>
      new Promise((resolve, reject) =>
        raw[method]!.call(raw, req, new Metadata(), { deadline: Date.now() + 10_000 }, (err: (Error & { metadata?: Metadata; info?: ErrorInfo }) | null, res: Record<string, unknown>) => {
          if (err) {
            const bin = err.metadata?.get(GRPC_ERROR_TRAILER)[0];
            if (bin instanceof Buffer) err.info = ErrorInfo.decode(bin);
            reject(err);
          } else resolve(res);
        }),
      ),
  });
  return { call, close: () => raw.close() };
}

const eventually = (check: () => Promise<boolean> | boolean, what: string, timeoutMs = 5000) => waitFor(check, { timeoutMs, intervalMs: 20, message: what });

const greet = (description: string): ToolInfo => ({
  id: 'custom:greet',
  provider: 'custom',
  name: 'greet',
  path: 'social',
  description,
  inputSchema: { type: 'object', properties: { who: { type: 'string' } } },
  outputDescription: '',
  examples: [],
  importance: Importance.IMPORTANCE_NORMAL,
  annotations: {},
  version: '',
  tags: [],
  defaultTimeoutMs: 0,
});

const tools: ToolDefinition<never>[] = [
  { name: 'echo_text', path: 'text', description: 'Echoes text back to the caller.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, annotations: { readOnly: true }, run: async (a: { text?: string }) => textResult(a.text ?? '') },
  {
    name: 'broken_echo',
    path: 'text',
    description: 'Echoes text, but its backend is down.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    run: async () => {
      throw ToolHubError.failed('backend answered 500');
    },
  },
  { name: 'count_words', path: 'text', description: 'Counts the words of a text.', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, run: async () => textResult('3') },
];

describe('registry', () => {
  let dir: string;
  let bus: InProcessBus;
  let store: EmbeddedRegistryStore;
  let registry: Registry;
  let admin: RunningAdminServer;
  let adapter: AdapterService;
  let dispatcher: RunningDispatcher;
  let agent: TestClient;
  let ops: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'registry-test-'));
    bus = new InProcessBus();
    store = await EmbeddedRegistryStore.open({ dir });
    registry = await Registry.start(bus, store);
    admin = await startAdminServer(registry, { port: 0 });
    adapter = await serveAdapter(bus, { provider: 'local', ...staticCatalog('local', tools) });
    dispatcher = await startDispatcher(bus, { grpc: { port: 0 }, dispatcher: { warmCoreTools: false } });
    agent = connectClient(dispatcher.grpc.address);
    ops = adminClient(admin.address);
    await eventually(async () => (await store.listTools({ provider: 'local' })).length === 3, 'the catalog announcement');
  });

  afterAll(async () => {
    agent.close();
    ops.close();
    await dispatcher.close(100);
    await adapter.close();
    await admin.close(100);
    await registry.close();
    await store.close();
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('mirrors an adapter catalog and searches it', async () => {
    const hits = await new Promise<{ hits: Array<{ id: string }> }>((resolve, reject) =>
      agent.raw.searchTools({ queries: ['count words'], provider: '', path: '', limit: 5, mode: 0, explain: false }, (err, r) => (err ? reject(err) : resolve(r))),
    );
    expect(hits.hits[0]?.id).toBe('local:count_words');
  });

  it('serves a tool changed by UpdateTool at its new version on the next GetToolInfo through the dispatcher', async () => {
    const registered = (await ops.call['registerTool']!({ tool: greet('Greets someone. Version one.') })) as { tool: ToolInfo };
    const first = await agent.getToolInfo({ provider: 'custom', name: 'greet' });
    expect(first.tool?.version).toBe(registered.tool.version);
    // The dispatcher now holds it in its cache; the update must evict it there.
    expect((await agent.getToolInfo({ provider: 'custom', name: 'greet' })).tool?.version).toBe(registered.tool.version);
    const updated = (await ops.call['updateTool']!({ tool: greet('Greets someone warmly. Version two.') })) as { tool: ToolInfo };
    expect(updated.tool.version).not.toBe(registered.tool.version);
    await eventually(async () => (await agent.getToolInfo({ provider: 'custom', name: 'greet' })).tool?.version === updated.tool.version, 'the new version');
    expect((await agent.getToolInfo({ provider: 'custom', name: 'greet' })).tool?.description).toContain('Version two');
  });

  it('counts every RunTool in the tool statistics', async () => {
    for (let i = 0; i < 5; i++) await agent.runTool({ provider: 'local', name: 'echo_text', arguments: { text: 'x' }, caller: 'test' });
    await eventually(async () => {
      try {
        const res = (await ops.call['getToolStats']!({ toolId: 'local:echo_text' })) as { stats: { calls: number } };
        return res.stats.calls === 5;
      } catch {
        return false;
      }
    }, 'five calls counted');
    const res = (await ops.call['getToolStats']!({ toolId: 'local:echo_text' })) as { stats: { calls: number; successRate: number; latencyP99Ms: number } };
    expect(res.stats).toMatchObject({ calls: 5, successRate: 1 });
  });

  it('keeps the preload set byte-stable and changes its fingerprint only when the list changes', async () => {
    const get = () =>
      new Promise<{ fingerprint: string; rendered: string; tools: Array<{ name: string }> }>((resolve, reject) =>
        agent.raw.getPreloadSet({ format: PreloadFormat.PRELOAD_FORMAT_ANTHROPIC }, (err, r) => (err ? reject(err) : resolve(r))),
      );
    const empty = await get();
    expect(empty.tools.map((t) => t.name)).toEqual(['tool_list', 'tool_info', 'tool_run', 'tool_search']);
    await ops.call['setPreloadList']!({ toolIds: ['local:count_words', 'local:echo_text'], expectedRevision: 0, changedBy: 'test', comment: 'first' });
    const a = await get();
    const b = await get();
    expect(a.rendered).toBe(b.rendered);
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(a.fingerprint).not.toBe(empty.fingerprint);
    expect(a.tools.map((t) => t.name)).toEqual(['tool_list', 'tool_info', 'tool_run', 'tool_search', 'count_words', 'echo_text']);
    expect(JSON.parse(a.rendered)[4]).toMatchObject({ name: 'local__count_words', input_schema: { required: ['text'] } });
  });

  it('suggests preload changes with reasons and numbers, without changing the list', async () => {
    const before = (await ops.call['getPreloadList']!({})) as { list: { revision: number } };
    const res = (await ops.call['suggestPreload']!({ limit: 5 })) as { suggestions: Array<{ reasons: string[] }>; removals: Array<{ toolId: string }> };
    expect(res.removals.map((r) => r.toolId)).toContain('local:count_words');
    const after = (await ops.call['getPreloadList']!({})) as { list: { revision: number } };
    expect(after.list.revision).toBe(before.list.revision);
  });

  it('walks the fallback chain when a tool fails, and says which tool served the call', async () => {
    await ops.call['setFallbacks']!({ toolId: 'local:broken_echo', fallbacks: ['local:echo_text'] });
    // The overlay change evicts the dispatcher's cached copy; the next run sees the chain.
    await eventually(async () => {
      const res = await agent.runTool({ provider: 'local', name: 'broken_echo', arguments: { text: 'hi' } }).catch(() => undefined);
      return res?.servedBy === 'local:echo_text';
    }, 'the fallback to serve');
    const res = await agent.runTool({ provider: 'local', name: 'broken_echo', arguments: { text: 'hi' } });
    expect(res).toMatchObject({ servedBy: 'local:echo_text', attempts: 2 });
    expect(res.content).toEqual([{ text: 'hi' }]);
  });

  it('refuses bad admin input precisely and changes nothing', async () => {
    const bad = await ops.call['registerTool']!({ tool: { ...greet('x'), name: 'Bad Name' } }).catch((e: { code: number; details: string }) => e);
    expect(bad).toMatchObject({ code: status.INVALID_ARGUMENT });
    const dup = await ops.call['registerTool']!({ tool: greet('again') }).catch((e: { code: number }) => e);
    expect(dup).toMatchObject({ code: status.ALREADY_EXISTS });
    const unknown = await ops.call['getToolStats']!({ toolId: 'local:nope' }).catch((e: { code: number }) => e);
    expect(unknown).toMatchObject({ code: status.NOT_FOUND });
    const before = (await ops.call['getPreloadList']!({})) as { list: { revision: number; toolIds: string[] } };
    const yaml = await ops.call['importOverlays']!({ content: 'tools: [unclosed', format: '', changedBy: 't', dryRun: false }).catch((e: { code: number; details: string }) => e);
    expect(yaml).toMatchObject({ code: status.INVALID_ARGUMENT });
    const unknownTool = await ops.call['importOverlays']!({ content: 'preload: [local:echo_text]\ntools:\n  local:nope: { importance: core }\n', format: '', changedBy: 't', dryRun: false }).catch((e: { code: number }) => e);
    expect(unknownTool).toMatchObject({ code: status.NOT_FOUND });
    const noWho = await ops.call['setPreloadList']!({ toolIds: [], expectedRevision: 0, changedBy: '', comment: '' }).catch((e: { code: number }) => e);
    expect(noWho).toMatchObject({ code: status.INVALID_ARGUMENT });
    const after = (await ops.call['getPreloadList']!({})) as { list: { revision: number; toolIds: string[] } };
    expect(after.list).toEqual(before.list);
  });

  it('answers an admin request quoting 300 KB of input with a short error, and the connection keeps working', async () => {
    const err = await ops.call['getTool']!({ provider: 'local', name: 'n'.repeat(300_000) }).catch((e: { code: number; details: string; info?: ErrorInfo }) => e);
    expect(err).toMatchObject({ code: status.INVALID_ARGUMENT });
    const { details, info } = err as { details: string; info?: ErrorInfo };
    expect(details.length).toBeLessThanOrEqual(2000);
    expect(details).toMatch(/more characters cut/);
    expect(info?.message).toBe(details);
    await expect(ops.call['getPreloadList']!({})).resolves.toHaveProperty('list');
  });

  it('imports an overlays file: importance, fallbacks and the preload list', async () => {
    const res = (await ops.call['importOverlays']!({
      content: 'preload: [local:echo_text]\ntools:\n  local:echo_text: { importance: core, fallbacks: [custom:greet] }\n',
      format: 'yaml',
      changedBy: 'git',
      dryRun: false,
    })) as { toolsChanged: number; preloadListChanged: boolean };
    expect(res).toMatchObject({ toolsChanged: 1, preloadListChanged: true });
    const tool = (await ops.call['getTool']!({ provider: 'local', name: 'echo_text' })) as { tool: { overlay: { importance: number; fallbacks: string[] } } };
    expect(tool.tool.overlay).toMatchObject({ importance: Importance.IMPORTANCE_CORE, fallbacks: ['custom:greet'] });
  });
});
