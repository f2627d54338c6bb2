/** Limits of a run on the bus: result size and idempotency key length. */
import { InProcessBus } from '@toolhub/bus';
import { RunStatus } from '@toolhub/contracts';

import { AdapterClient, serveAdapter, staticCatalog, textResult, type ToolDefinition } from '../src';

const tools: ToolDefinition<never>[] = [
  { name: 'big_text', path: 'text', description: 'Returns n characters.', inputSchema: { type: 'object' }, run: async (a: { n: number }) => textResult('x'.repeat(a.n)) },
];

describe('run results and the bus payload limit', () => {
  const bus = new InProcessBus({ maxPayload: 64 * 1024 });
  const client = new AdapterClient(bus);

  beforeAll(async () => {
    await serveAdapter(bus, { provider: 'local', ...staticCatalog('local', tools) }, { announceOnStart: false });
  });
  afterAll(() => bus.close());

  const run = (n: number, idempotencyKey = '') => client.run('local', { name: 'big_text', arguments: { n }, deadlineUnixMs: Date.now() + 5000, idempotencyKey, caller: '' }, { timeoutMs: 5000 });

  it('delivers results that fit', async () => {
    const res = await run(40_000);
    expect(res.status).toBe(RunStatus.RUN_STATUS_OK);
  });

  it('turns a result too large for one reply into a tool error telling the caller to ask for less', async () => {
    const res = await run(200_000);
    expect(res.status).toBe(RunStatus.RUN_STATUS_TOOL_ERROR);
    expect(res.errorMessage).toMatch(/^The result of local:big_text is \d+ bytes, more than the 57344 bytes one reply can carry\. Ask for less/);
  });

  it('refuses an idempotency key longer than 256 characters, since keys are remembered', async () => {
    await expect(run(10, 'k'.repeat(257))).rejects.toMatchObject({ code: 'invalid_argument', message: expect.stringMatching(/^idempotency_key is 257 characters long; the limit is 256/) });
    await expect(run(10, 'k'.repeat(256))).resolves.toMatchObject({ status: RunStatus.RUN_STATUS_OK });
  });
});
