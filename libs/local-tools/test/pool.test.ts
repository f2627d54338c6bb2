import { join } from 'node:path';

import type { RunContext } from '@toolhub/adapter-sdk';
import { ToolHubError } from '@toolhub/contracts';

import { createLocalTools, createTextTools, ToolWorkerPool } from '../src';
import { call, callError, ctx as helperCtx, data, pick } from './helpers';

const SPIN = join(__dirname, 'fixtures', 'spin-worker.js');

function ctx(timeoutMs: number, signal = new AbortController().signal): RunContext {
  return { signal, deadline: Date.now() + timeoutMs, caller: '', idempotencyKey: '' };
}

describe('ToolWorkerPool', () => {
  const pools: ToolWorkerPool[] = [];
  const pool = (options: Parameters<typeof ToolWorkerPool.create>[0] = {}) => {
    const p = ToolWorkerPool.create(options);
    pools.push(p);
    return p;
  };
  afterAll(async () => Promise.all(pools.map((p) => p.close())));

  it('runs the real text and data tools on worker threads, with the same answers', async () => {
    const tools = createLocalTools({ root: '.', categories: ['data', 'text'], toolPool: pool({ size: 1 }) });
    const inThread = createTextTools();
    const args = { text: 'Héllo wörld! 👋🏽\nBye.' };
    expect(await call(pick(tools, 'text_stats'), args, helperCtx(60_000))).toEqual(await call(pick(inThread, 'text_stats'), args));
    expect(data(await call(pick(tools, 'data_csv_to_json'), { csv: 'a,b\n1,2\n' }, helperCtx(60_000)))).toMatchObject({ rows: [{ a: '1', b: '2' }] });
  });

  it('brings a tool error back with its code and details', async () => {
    const tools = createLocalTools({ root: '.', categories: ['text'], toolPool: pool({ size: 1 }) });
    const err = await callError(pick(tools, 'text_regex_extract'), { text: 'a', pattern: '(?=a)' }, helperCtx(60_000));
    expect(err.code).toBe('invalid_argument');
    expect(err.violations[0]?.field).toBe('/pattern');
  });

  it('ends a call that overruns its deadline, keeps the adapter thread free meanwhile, and recovers', async () => {
    const p = pool({ size: 1, script: SPIN });
    p.warm();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const started = Date.now();
    const err = await p.run('spin', {}, ctx(1500)).catch((e: unknown) => e);
    clearInterval(ticker);
    expect(err).toBeInstanceOf(ToolHubError);
    expect((err as ToolHubError).code).toBe('timeout');
    expect((err as ToolHubError).message).toMatch(/did not finish within the call's deadline \(\d+ ms\) and was stopped/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    // The spinning call never blocked this thread: its timers kept firing.
    expect(ticks).toBeGreaterThan(10);
    expect(p.stats()).toMatchObject({ replaced: 1, busy: 0 });
    const result = await p.run('echo', { again: true }, ctx(60_000));
    expect(result.content[0]).toEqual({ text: '{"again":true}' });
  });

  it('stops a call when its signal aborts (cancellation) and frees the worker', async () => {
    const p = pool({ size: 1, script: SPIN });
    const abort = new AbortController();
    const running = p.run('spin', {}, ctx(60_000, abort.signal)).catch((e: unknown) => e);
    setTimeout(() => abort.abort(), 200);
    expect(((await running) as ToolHubError).code).toBe('timeout');
    expect((await p.run('echo', {}, ctx(60_000))).content).toHaveLength(1);
  });

  it('answers failed when a call needs more memory than a worker may have', async () => {
    const p = pool({ size: 1, script: SPIN, maxMemoryMb: 32 });
    const err = (await p.run('hog', {}, ctx(60_000)).catch((e: unknown) => e)) as ToolHubError;
    expect(err.code).toBe('failed');
    expect(err.message).toContain('more than 32 MB');
    expect((await p.run('echo', {}, ctx(60_000))).content).toHaveLength(1);
  });

  it('caps each worker\'s young generation (16 MB unless told), and refuses a cap out of range naming the option', async () => {
    const limits = async (p: ToolWorkerPool) => JSON.parse(((await p.run('limits', {}, ctx(60_000))).content[0] as { text: string }).text) as Record<string, number>;
    expect(await limits(pool({ size: 1, script: SPIN }))).toMatchObject({ maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 256 });
    expect(await limits(pool({ size: 1, script: SPIN, youngGenerationMb: 48 }))).toMatchObject({ maxYoungGenerationSizeMb: 48 });
    expect(() => ToolWorkerPool.create({ youngGenerationMb: 2 })).toThrow(/youngGenerationMb/);
  });

  it('queues calls beyond its size, and a queued call that expires never starts', async () => {
    const p = pool({ size: 1, script: SPIN });
    const blocker = p.run('spin', {}, ctx(3000)).catch((e: unknown) => e);
    const queued = p.run('echo', {}, ctx(500)).catch((e: unknown) => e);
    expect(((await queued) as ToolHubError).code).toBe('timeout');
    expect(((await blocker) as ToolHubError).code).toBe('timeout');
    expect(p.stats()).toMatchObject({ queued: 0, busy: 0 });
  });

  it('refuses calls after close', async () => {
    const p = pool({ size: 1, script: SPIN });
    await p.close();
    expect(((await p.run('echo', {}, ctx(1000)).catch((e: unknown) => e)) as ToolHubError).code).toBe('unavailable');
  });
});
