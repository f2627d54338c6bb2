/**
 * A recursive listing of a 20,000-tool provider through real NATS: several MiB, past the server's
 * 1 MiB message limit, so the adapter sends it in parts and the dispatcher joins them (before,
 * ListTools of such a provider failed with the bus's size error).
 */
import { type AdapterService, serveAdapter, staticCatalog, textResult } from '@toolhub/adapter-sdk';
import { NatsBus } from '@toolhub/bus';
import { natsUrl } from '@toolhub/test-harness';

import { type RunningDispatcher, startDispatcher } from '../src';
import { connectClient, type TestClient } from './support/grpc-client';

jest.setTimeout(60_000);

const TOOLS = 20_000;

describe('a listing larger than one NATS message', () => {
  let adapterBus: NatsBus;
  let dispatcherBus: NatsBus;
  let adapter: AdapterService;
  let running: RunningDispatcher;
  let client: TestClient;

  beforeAll(async () => {
    const url = await natsUrl();
    adapterBus = await NatsBus.connect({ servers: url, name: 'big-listing-adapter' });
    dispatcherBus = await NatsBus.connect({ servers: url, name: 'big-listing-dispatcher' });
    const catalog = staticCatalog(
      'wide',
      Array.from({ length: TOOLS }, (_, i) => ({
        name: `tool_${i}`,
        path: `area_${i % 50}/group_${i % 7}`,
        description: `Tool number ${i} of the wide provider: it does one small thing and says so in a sentence of ordinary length.`,
        inputSchema: { type: 'object' },
        run: async () => textResult('ok'),
      })),
    );
    adapter = await serveAdapter(adapterBus, { provider: 'wide', ...catalog });
    running = await startDispatcher(dispatcherBus, { grpc: { port: 0 } });
    client = connectClient(running.grpc.address);
  });

  afterAll(async () => {
    client.close();
    await running.close(100);
    await adapter.close();
    await Promise.all([adapterBus.close(), dispatcherBus.close()]);
  });

  it('lists every tool of the provider recursively, page after page', async () => {
    const names = new Set<string>();
    let pageToken = '';
    let total = 0;
    do {
      const page = await client.listTools({ provider: 'wide', path: '', recursive: true, pageSize: 5000, pageToken }, { deadlineMs: 30_000 });
      for (const t of page.tools) names.add(t.name);
      total = page.total;
      pageToken = page.nextPageToken;
    } while (pageToken);
    expect(total).toBe(TOOLS);
    expect(names.size).toBe(TOOLS);
    expect(names.has('tool_0') && names.has(`tool_${TOOLS - 1}`)).toBe(true);
    // The joined listing really is larger than one message of this server.
    expect(TOOLS * 100).toBeGreaterThan(dispatcherBus.maxPayload);
  });
});
