import { serveAdapter, staticCatalog, textResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { ADAPTER_DISCOVERY_SUBJECT, ADAPTER_HEARTBEAT_SUBJECT, AdapterHealthResponse, CONTRACT_VERSION } from '@toolhub/contracts';

import { conformanceRuleIds, formatReport, runConformance, schemaProblems } from '../src';
import { BROKEN_RULES, serveBrokenAdapter } from './fixtures/broken-adapter';

const tools: ToolDefinition<never>[] = [
  { name: 'echo_text', path: 'text', description: 'Echoes text back.', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, run: async (a: { text: string }) => textResult(a.text) },
  {
    name: 'slow_wait',
    path: 'time',
    description: 'Waits ten seconds unless cancelled.',
    inputSchema: { type: 'object', properties: {} },
    run: (_a, ctx) =>
      new Promise((resolve) => {
        const t = setTimeout(() => resolve(textResult('done')), 10_000);
        ctx.signal.addEventListener('abort', () => clearTimeout(t));
      }),
  },
  { name: 'big_text', path: 'text', description: 'Returns n characters.', inputSchema: { type: 'object', properties: { n: { type: 'integer' } } }, run: async (a: { n: number }) => textResult('x'.repeat(a.n)) },
];

describe('the adapter conformance kit', () => {
  const bus = new InProcessBus({ maxPayload: 256 * 1024 });
  let stopBroken: () => Promise<void>;

  beforeAll(async () => {
    await serveAdapter(bus, { provider: 'good', ...staticCatalog('good', tools) }, { announceOnStart: false });
    stopBroken = await serveBrokenAdapter(bus, 'broken');
  });
  afterAll(async () => {
    await stopBroken();
    await bus.close();
  });

  it('passes an SDK adapter on every rule it can check, and skips only the drain', async () => {
    const report = await runConformance(bus, {
      provider: 'good',
      heartbeatWaitMs: 3000,
      runTool: { name: 'echo_text', arguments: { text: 'hi' } },
      slowTool: { name: 'slow_wait', arguments: {} },
      largeTool: { name: 'big_text', arguments: { n: 400_000 } },
    });
    expect(report.results.filter((r) => r.status === 'fail')).toEqual([]);
    expect(report.results.filter((r) => r.status === 'skip').map((r) => r.id)).toEqual(['drain']);
    expect(report).toMatchObject({ toolCount: 3, failed: 0, contractVersion: expect.stringMatching(/^1\./) });
  });

  it('skips the rules that need a named tool when none is given, saying which option to pass', async () => {
    const report = await runConformance(bus, { provider: 'good', heartbeatWaitMs: 3000 });
    const skipped = report.results.filter((r) => r.status === 'skip');
    expect(skipped.map((r) => r.id)).toEqual(['deadline.honoured', 'run.shape', 'idempotency', 'results.large', 'drain']);
    expect(skipped.find((r) => r.id === 'run.shape')?.detail).toContain('--run-tool');
    expect(report.failed).toBe(0);
  });

  it('fails a broken adapter on each rule it breaks, naming what is wrong', async () => {
    const report = await runConformance(bus, { provider: 'broken', heartbeatWaitMs: 3000, timeoutMs: 2000, runTool: { name: 'twice', arguments: {} }, slowTool: { name: 'sleepy', arguments: {} } });
    const failed = report.results.filter((r) => r.status === 'fail');
    expect(failed.map((r) => r.id)).toEqual(BROKEN_RULES);
    const problems = (id: string) => report.results.find((r) => r.id === id)!.problems.join('\n');
    expect(problems('heartbeat')).toContain('contract version 7.0.0 is refused');
    expect(problems('names')).toContain('"Bad-Name" does not match');
    expect(problems('names')).toContain('twice is listed twice');
    expect(problems('names')).toContain('path "Misc//Things/" is not normalised');
    expect(problems('info.shape')).toContain('returned tool "thing"');
    expect(problems('info.shape')).toContain('empty description');
    expect(problems('schema')).toContain('type is "string", not "object"');
    expect(problems('catalog.size')).toContain('the heartbeat says 99 tools, the list has 4');
    expect(problems('errors.not_found')).toContain('answered with code internal');
    expect(problems('errors.malformed')).toContain('expected invalid_argument');
    expect(problems('deadline.expired')).toContain('answered successfully, expected error code timeout');
    expect(problems('run.shape')).toContain('several kinds (text, json)');
    expect(problems('idempotency')).toContain('gave different results');
    const text = formatReport(report);
    for (const id of BROKEN_RULES) expect(text).toMatch(new RegExp(`^${id.replace('.', '\\.')}\\s+FAIL`, 'm'));
    expect(text).toContain(`0 passed, ${BROKEN_RULES.length} failed`);
  });

  it('fails an adapter whose heartbeats arrive only on the legacy shared subject (NATS users with ToolHub’s permissions cannot publish there)', async () => {
    const beat = AdapterHealthResponse.encode({ provider: 'legacy', instanceId: 'old-1', healthy: true, detail: 'ok', toolCount: 0, startedUnixMs: Date.now(), catalogVersion: 'x', quarantinedCount: 0, contractVersion: CONTRACT_VERSION, sdkVersion: 'old' }).finish();
    const sub = await bus.subscribe(ADAPTER_DISCOVERY_SUBJECT, () => bus.publish(ADAPTER_HEARTBEAT_SUBJECT, beat));
    try {
      const report = await runConformance(bus, { provider: 'legacy', heartbeatWaitMs: 1000, timeoutMs: 500 });
      const heartbeat = report.results.find((r) => r.id === 'heartbeat')!;
      expect(heartbeat.status).toBe('fail');
      expect(heartbeat.problems.join('\n')).toContain('only on the legacy shared subject toolhub.v1.discovery.heartbeat');
      expect(heartbeat.problems.join('\n')).toContain('toolhub.v1.discovery.heartbeat.legacy');
    } finally {
      await sub.close();
    }
  });

  it('lists a rule for each check of the issue: shapes, names, schemas, errors, deadlines, idempotency, heartbeats, drain (always skipped: it needs control of the process), sizes', () => {
    expect(conformanceRuleIds()).toEqual(['heartbeat', 'health', 'list.shape', 'names', 'info.shape', 'schema', 'catalog.size', 'errors.not_found', 'errors.malformed', 'deadline.expired', 'deadline.honoured', 'run.shape', 'idempotency', 'results.large', 'drain']);
  });

  it('finds schema problems of required names outside the properties', () => {
    expect(schemaProblems('t', { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] })).toEqual(['tool t: required names b, which is not among its properties']);
    expect(schemaProblems('t', { type: 'object' })).toEqual([]);
  });
});
