/** A tool's progress: coalesced per call, sent only where the run request asked, the last update never lost. */
import { InProcessBus } from '@toolhub/bus';
import { HEADER_PROGRESS_SUBJECT, RunStatus, RunToolProgress } from '@toolhub/contracts';
import { waitFor } from '@toolhub/test-harness';

import { AdapterClient, ProgressReporter, serveAdapter, staticCatalog, textResult, type ToolDefinition } from '../src';

describe('ProgressReporter (coalescing)', () => {
  let clock = 0;
  let sent: RunToolProgress[];
  let reporter: ProgressReporter;
  beforeEach(() => {
    jest.useFakeTimers();
    clock = 1_000;
    sent = [];
    reporter = new ProgressReporter((u) => sent.push(u), 100, () => clock);
  });
  afterEach(() => jest.useRealTimers());
  const advance = (ms: number) => {
    clock += ms;
    jest.advanceTimersByTime(ms);
  };

  it('sends the first update at once, then at most one per interval with the latest values', () => {
    for (let i = 1; i <= 1000; i++) reporter.progress({ progress: i, total: 1000, message: `step ${i}` });
    expect(sent).toEqual([{ progress: 1, total: 1000, message: 'step 1', log: '' }]);
    advance(99);
    expect(sent).toHaveLength(1);
    advance(1);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual({ progress: 1000, total: 1000, message: 'step 1000', log: '' });
    advance(1000);
    expect(sent).toHaveLength(2); // nothing new, nothing sent
  });

  it('delivers the last update when the run ends, before the interval is up, and nothing after', () => {
    reporter.progress({ progress: 1 });
    reporter.progress({ progress: 2, message: 'almost' });
    reporter.log('last line');
    reporter.end();
    expect(sent).toEqual([
      { progress: 1, message: '', log: '' },
      { progress: 2, message: 'almost', log: 'last line' },
    ]);
    reporter.progress({ progress: 3 });
    reporter.log('too late');
    advance(500);
    expect(sent).toHaveLength(2);
  });

  it('keeps every log line between two messages, up to a cap that drops the oldest and says how many', () => {
    reporter.log('first');
    for (let i = 0; i < 5; i++) reporter.log(`line ${i}`);
    advance(100);
    expect(sent[1]!.log).toBe('line 0\nline 1\nline 2\nline 3\nline 4');
    for (let i = 0; i < 2000; i++) reporter.log(`chatty line ${i} ${'x'.repeat(20)}`);
    advance(100);
    const log = sent[2]!.log;
    expect(log.length).toBeLessThan(9 * 1024);
    expect(log).toMatch(/^\[\d+ earlier log lines dropped\]\n/);
    expect(log.endsWith(`chatty line 1999 ${'x'.repeat(20)}`)).toBe(true);
  });

  it('ignores values that are not finite numbers', () => {
    reporter.progress({ progress: Number.NaN, total: Infinity, message: 'still' });
    expect(sent).toEqual([{ message: 'still', log: '' }]);
  });
});

describe('serveAdapter: ctx.progress and ctx.log', () => {
  const bus = new InProcessBus();
  const client = new AdapterClient(bus);
  const tools: ToolDefinition<never>[] = [
    {
      name: 'chatty',
      path: '',
      description: 'Reports progress 200 times, logs, then answers.',
      inputSchema: { type: 'object' },
      run: async (_a, ctx) => {
        for (let i = 1; i <= 200; i++) ctx.progress?.({ progress: i, total: 200, message: `item ${i}` });
        ctx.log?.('done with items');
        return textResult('ok');
      },
    },
  ];
  const received: Array<{ subject: string; update: RunToolProgress }> = [];

  beforeAll(async () => {
    await serveAdapter(bus, { provider: 'prog', ...staticCatalog('prog', tools) }, { announceOnStart: false });
    await bus.subscribe('toolhub.v1.progress.>', (m) => void received.push({ subject: m.subject, update: RunToolProgress.decode(m.data) }));
  });
  afterAll(() => bus.close());
  beforeEach(() => void received.splice(0));

  const run = (headers: Record<string, string>) =>
    client.run('prog', { name: 'chatty', arguments: {}, deadlineUnixMs: Date.now() + 10_000, idempotencyKey: '', caller: '' }, { timeoutMs: 10_000, headers });

  it('sends coalesced updates to the subject the request named, the last one carrying the final state', async () => {
    const subject = 'toolhub.v1.progress.prog.d1.c1';
    expect((await run({ [HEADER_PROGRESS_SUBJECT]: subject })).status).toBe(RunStatus.RUN_STATUS_OK);
    await waitFor(() => received.at(-1)?.update.log === 'done with items');
    // 200 reports in one tick: the first at once, the rest merged into the one sent when the run ended.
    expect(received.map((r) => r.subject)).toEqual([subject, subject]);
    expect(received[0]!.update).toMatchObject({ progress: 1, total: 200, message: 'item 1' });
    expect(received[1]!.update).toMatchObject({ progress: 200, total: 200, message: 'item 200', log: 'done with items' });
  });

  it('sends nothing when the request did not ask, or named a subject outside its provider’s progress prefix', async () => {
    await run({});
    await run({ [HEADER_PROGRESS_SUBJECT]: 'toolhub.v1.progress.other.d1.c2' });
    await run({ [HEADER_PROGRESS_SUBJECT]: 'toolhub.v1.registry.sync.prog' });
    // A marker published after the runs arrives after anything they could have sent (in-order delivery).
    bus.publish('toolhub.v1.progress.marker', RunToolProgress.encode({ message: 'marker', log: '' }).finish());
    await waitFor(() => received.length > 0);
    expect(received.map((r) => r.update.message)).toEqual(['marker']);
  });
});
