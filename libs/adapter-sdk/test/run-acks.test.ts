/** Run acknowledgements: only runs that are still going after the delay are acknowledged. */
import { InProcessBus } from '@toolhub/bus';
import { HEADER_ACK_SUBJECT, RunStatus } from '@toolhub/contracts';

import { AdapterClient, serveAdapter, staticCatalog, textResult, type ToolDefinition } from '../src';

describe('run acknowledgements', () => {
  const bus = new InProcessBus();
  const client = new AdapterClient(bus);
  const acked: string[] = [];
  let release: (() => void) | undefined;
  const tools: ToolDefinition<never>[] = [
    { name: 'quick', path: '', description: 'Answers at once.', inputSchema: { type: 'object' }, run: async () => textResult('ok') },
    {
      name: 'slow',
      path: '',
      description: 'Answers when released.',
      inputSchema: { type: 'object' },
      run: () => new Promise((resolve) => (release = () => resolve(textResult('done')))),
    },
  ];
  let instanceId = '';

  beforeAll(async () => {
    const service = await serveAdapter(bus, { provider: 'acks', ...staticCatalog('acks', tools) }, { announceOnStart: false, runAckDelayMs: 1000 });
    instanceId = service.instanceId;
    await bus.subscribe('toolhub.v1.ack.test.>', (m) => void acked.push(`${m.subject}=${new TextDecoder().decode(m.data)}`));
  });
  afterAll(() => bus.close());

  const run = (name: string, callId: string) =>
    client.run('acks', { name, arguments: {}, deadlineUnixMs: Date.now() + 10_000, idempotencyKey: '', caller: '' }, { timeoutMs: 10_000, headers: { [HEADER_ACK_SUBJECT]: `toolhub.v1.ack.test.${callId}` } });

  it('sends no acknowledgement for a run that answers within the delay: its reply says it all', async () => {
    expect((await run('quick', 'q1')).status).toBe(RunStatus.RUN_STATUS_OK);
    await new Promise((r) => setTimeout(r, 1100)); // past the delay: nothing is sent late either
    expect(acked).toEqual([]);
  });

  it('acknowledges a run still going after the delay, with the replica id', async () => {
    const pending = run('slow', 's1');
    while (acked.length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(acked).toEqual([`toolhub.v1.ack.test.s1=${instanceId}`]);
    release!();
    expect((await pending).status).toBe(RunStatus.RUN_STATUS_OK);
  });
});
