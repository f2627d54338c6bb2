/**
 * Contract compatibility through the real dispatcher (its own process) on a real nats-server:
 * - an adapter built against the published contract snapshot (proto/published/toolhub-v1.binpb,
 *   from before contract versioning) is still listed, described and run, and its errors keep
 *   their codes;
 * - an adapter announcing contract 2.0.0 is refused, clearly, in ListProviders, GetStatus, the
 *   CLI and on RunTool.
 */
import { status } from '@grpc/grpc-js';
import { type AdapterService, serveAdapter, staticCatalog, textResult } from '@toolhub/adapter-sdk';
import { NatsBus } from '@toolhub/bus';
import { CONTRACT_VERSION, ErrorCode, type GetStatusResponse, RunStatus } from '@toolhub/contracts';
import { natsUrl, type SpawnedProcess, waitFor } from '@toolhub/test-harness';

import { cliRunner } from '../../libs/cli/test/support/run-cli';
import { connectAgent, failure, type AgentClient, startDispatcherProcess } from '../e2e/support/stack';
import { servePublishedAdapter } from './published-adapter';

jest.setTimeout(60_000);

describe('adapters of the published contract and of another major, against the current dispatcher', () => {
  let dispatcher: { proc: SpawnedProcess; address: string };
  let agent: AgentClient;
  let old: { close(): Promise<void> };
  let bus: NatsBus;
  let future: AdapterService;

  beforeAll(async () => {
    const nats = await natsUrl();
    dispatcher = await startDispatcherProcess(nats);
    agent = connectAgent(dispatcher.address);
    old = await servePublishedAdapter(nats, 'published_v1');
    bus = await NatsBus.connect({ servers: nats, name: 'compat-test' });
    future = await serveAdapter(bus, { provider: 'future_v2', ...staticCatalog('future_v2', [{ name: 'echo_text', path: 'text', description: 'Echoes.', inputSchema: { type: 'object' }, run: async () => textResult('v2') }]) }, { contractVersion: '2.0.0', announceOnStart: false });
    await waitFor(async () => (await agent.listProviders({})).providers.filter((p) => p.provider === 'published_v1' || p.provider === 'future_v2').length === 2, { timeoutMs: 20_000, message: 'both adapters at the dispatcher' });
  }, 120_000);

  afterAll(async () => {
    agent?.close();
    await future?.close();
    await bus?.close();
    await old?.close();
    await dispatcher?.proc.kill('SIGTERM');
  });

  it('serves the published-contract adapter as contract 1.0.0', async () => {
    const p = (await agent.listProviders({})).providers.find((x) => x.provider === 'published_v1');
    expect(p).toMatchObject({ healthy: true, incompatible: false, contractVersion: '1.0.0', toolCount: 1, replicas: 1 });
  });

  it('lists, describes and runs its tool', async () => {
    const list = await agent.listTools({ provider: 'published_v1', path: 'legacy' });
    expect(list.tools.map((t) => t.name)).toEqual(['old_echo']);
    const info = await agent.getToolInfo({ provider: 'published_v1', name: 'old_echo' });
    expect(info.tool?.inputSchema).toEqual({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    const res = await agent.runTool({ provider: 'published_v1', name: 'old_echo', arguments: { text: 'hi' } });
    expect(res.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(res.content).toEqual([{ text: 'old: hi' }]);
  });

  it('keeps the code of its errors', async () => {
    const err = await failure(agent.getToolInfo({ provider: 'published_v1', name: 'new_thing' }));
    expect(err.code).toBe(status.NOT_FOUND);
    expect(err.info).toMatchObject({ code: ErrorCode.ERROR_CODE_NOT_FOUND, suggestions: ['old_echo'] });
  });

  it('refuses the 2.0.0 adapter in ListProviders and GetStatus, saying what to upgrade', async () => {
    const p = (await agent.listProviders({})).providers.find((x) => x.provider === 'future_v2');
    expect(p).toMatchObject({ healthy: false, incompatible: true, contractVersion: '2.0.0', replicas: 0, refusedReplicas: 1 });
    expect(p?.detail).toBe(
      `refused: the adapter speaks ToolHub contract 2.0.0 but this dispatcher speaks ${CONTRACT_VERSION}; majors differ, so their messages may not mean the same. ` +
        'To fix it, upgrade the dispatcher to one that speaks contract 2.x, or run an adapter built with an SDK for contract 1.x.',
    );
    const st = await new Promise<GetStatusResponse>((resolve, reject) => agent.raw.getStatus({}, (err, r) => (err ? reject(err) : resolve(r))));
    expect(st.providers.find((x) => x.provider === 'future_v2')).toMatchObject({ incompatible: true, detail: p?.detail });
  });

  it('refuses calls to it with FAILED_PRECONDITION', async () => {
    const err = await failure(agent.runTool({ provider: 'future_v2', name: 'echo_text' }));
    expect(err.code).toBe(status.FAILED_PRECONDITION);
    expect(err.details).toContain('Provider "future_v2" is refused: the adapter speaks ToolHub contract 2.0.0');
  });

  it('shows it as REFUSED in `toolhub providers`', async () => {
    const r = await cliRunner({ TOOLHUB_ADDRESS: dispatcher.address })(['providers']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^future_v2\s+REFUSED\s+1\s+0\s+2\.0\.0\s+refused: the adapter speaks ToolHub contract 2\.0\.0/m);
    expect(r.stdout).toMatch(/^published_v1\s+healthy\s+1\s+1\s+1\.0\.0\s+ok/m);
  });
});
