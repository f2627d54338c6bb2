import { status } from '@grpc/grpc-js';
import { type AdapterService, SDK_NAME, SDK_VERSION, serveAdapter, staticCatalog, textResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { CONTRACT_VERSION, type GetStatusResponse, RunStatus } from '@toolhub/contracts';

import { type RunningDispatcher, startDispatcher } from '../src';
import { connectClient, failure, type TestClient } from './support/grpc-client';

const echo = (provider: string, answer = provider): ToolDefinition<never>[] => [
  { name: 'echo_text', path: 'text', description: `Echoes text (${provider}).`, inputSchema: { type: 'object' }, run: async () => textResult(answer) },
];

describe('dispatcher and adapter contract versions', () => {
  let bus: InProcessBus;
  const adapters: AdapterService[] = [];
  let running: RunningDispatcher;
  let client: TestClient;

  const serve = async (provider: string, contractVersion?: string, answer?: string) =>
    adapters.push(await serveAdapter(bus, { provider, ...staticCatalog(provider, echo(provider, answer)) }, { contractVersion, announceOnStart: false }));

  beforeAll(async () => {
    bus = new InProcessBus();
    running = await startDispatcher(bus, { grpc: { port: 0 } });
    await serve('current');
    await serve('legacy', ''); // an adapter from before contract versioning sends no version
    await serve('newer_minor', '1.9.0');
    await serve('future', '2.0.0');
    await serve('mixed', undefined, 'accepted replica');
    await serve('mixed', '2.1.0', 'refused replica');
    client = connectClient(running.grpc.address);
  });

  afterAll(async () => {
    client.close();
    await running.close(100);
    for (const a of adapters) await a.close();
    await bus.close();
  });

  it('announces the contract and SDK version in heartbeats and shows them in ListProviders', async () => {
    const { providers } = await client.listProviders({});
    const current = providers.find((p) => p.provider === 'current');
    expect(current).toMatchObject({ healthy: true, incompatible: false, contractVersion: CONTRACT_VERSION, sdkVersion: `${SDK_NAME}@${SDK_VERSION}` });
  });

  it('serves an adapter without a version as contract 1.0.0, and a newer minor as it is', async () => {
    const { providers } = await client.listProviders({});
    expect(providers.find((p) => p.provider === 'legacy')).toMatchObject({ healthy: true, incompatible: false, contractVersion: '1.0.0' });
    expect(providers.find((p) => p.provider === 'newer_minor')).toMatchObject({ healthy: true, incompatible: false, contractVersion: '1.9.0' });
    for (const provider of ['legacy', 'newer_minor']) {
      const res = await client.runTool({ provider, name: 'echo_text' });
      expect(res.status).toBe(RunStatus.RUN_STATUS_OK);
      expect(res.content).toEqual([{ text: provider }]);
    }
  });

  it('lists an adapter of another major as refused, saying why and what to upgrade', async () => {
    const { providers } = await client.listProviders({});
    const future = providers.find((p) => p.provider === 'future');
    expect(future).toMatchObject({ healthy: false, incompatible: true, replicas: 0, refusedReplicas: 1, contractVersion: '2.0.0' });
    expect(future?.detail).toContain(`speaks ToolHub contract 2.0.0 but this dispatcher speaks ${CONTRACT_VERSION}`);
    expect(future?.detail).toContain('upgrade the dispatcher');
  });

  it('shows the refusal in GetStatus too', async () => {
    const res = await new Promise<GetStatusResponse>((resolve, reject) => client.raw.getStatus({}, (err, r) => (err ? reject(err) : resolve(r))));
    expect(res.providers.find((p) => p.provider === 'future')).toMatchObject({ incompatible: true });
    expect(res.providers.find((p) => p.provider === 'future')?.detail).toContain('refused');
  });

  it('refuses calls to an incompatible provider with FAILED_PRECONDITION instead of calling it', async () => {
    const err = await failure(client.runTool({ provider: 'future', name: 'echo_text' }));
    expect(err.code).toBe(status.FAILED_PRECONDITION);
    expect(err.details).toContain('contract 2.0.0');
    // tool_info hides it like a provider that does not exist (the registry may still know its tools).
    const info = await failure(client.getToolInfo({ provider: 'future', name: 'echo_text' }));
    const missing = await failure(client.getToolInfo({ provider: 'nowhere', name: 'echo_text' }));
    expect(info.code).toBe(status.NOT_FOUND);
    expect(info.details.replace('future', '<P>')).toBe(missing.details.replace('nowhere', '<P>'));
  });

  it('hides a refused provider from the agent at the root of tool_list', async () => {
    const res = await client.listTools({});
    expect(res.categories.map((c) => c.name)).toEqual(['current', 'legacy', 'mixed', 'newer_minor']);
  });

  it('serves a provider through its compatible replicas and counts the refused one', async () => {
    const { providers } = await client.listProviders({});
    const mixed = providers.find((p) => p.provider === 'mixed');
    expect(mixed).toMatchObject({ healthy: true, incompatible: false, replicas: 1, refusedReplicas: 1 });
    expect(mixed?.detail).toContain('1 replica refused');
    // Every call goes to the accepted replica, none through the queue group the refused one shares.
    const answers = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const res = await client.runTool({ provider: 'mixed', name: 'echo_text' });
      answers.add(res.content.map((c) => c.text).join(''));
    }
    expect([...answers]).toEqual(['accepted replica']);
    const listed = await client.listTools({ provider: 'mixed', recursive: true });
    expect(listed.tools.map((t) => t.name)).toEqual(['echo_text']);
  });
});
