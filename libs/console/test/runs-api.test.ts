/**
 * Async runs through the console's JSON layer against a real dispatcher with async runs: StartRun,
 * ListRuns (paged, by state), CancelRun as JSON, and WatchRun relayed as Server-Sent Events — each
 * progress update arriving while the run goes on, the result in the last one; errors before the
 * stream starts answered as JSON and after it as an error event, another principal's run
 * invisible, the same CSRF rule as every call, a cap on the streams one session holds open, and
 * the gRPC call cancelled when the page goes away.
 */
import { waitFor } from '@toolhub/test-harness';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type ConsoleClient, consoleClient, errorOf, type StreamEvent } from './support/console-client';
import { ADMIN_KEY, exportGate, OPERATOR_KEY, type Stack, startStack } from './support/stack';

const RUNS = '/api/toolhub.v1.ToolHub';

interface Run {
  runId: string;
  state: string;
  attempts?: number;
  progress?: { progress?: number; total?: number; message?: string };
  logLines?: string[];
  result?: { status?: string; content?: Array<{ text?: string }> };
  error?: { code?: string; message?: string; violations?: Array<{ field: string; message: string }> };
}
interface Update {
  run: Run;
  newLogLines?: string[];
  final?: boolean;
}

describe('async runs through the console JSON layer', () => {
  let stack: Stack;
  let ops: ConsoleClient;
  const ui = mkdtempSync(join(tmpdir(), 'console-ui-'));

  const start = async (c: ConsoleClient, label: string, args: Record<string, unknown> = { label, parts: 2 }): Promise<Run> => {
    const r = await c.request('POST', `${RUNS}/StartRun`, { call: { provider: 'local', name: 'slow_export', arguments: args } });
    expect(r.status).toBe(200);
    return (r.body as unknown as { run: Run }).run;
  };
  /** Reads the stream's events until `until` holds for one (or the stream ends). */
  const readUntil = async (events: AsyncGenerator<StreamEvent>, until: (e: StreamEvent) => boolean): Promise<StreamEvent[]> => {
    const seen: StreamEvent[] = [];
    for (;;) {
      const next = await events.next();
      if (next.done) return seen;
      seen.push(next.value);
      if (until(next.value)) return seen;
    }
  };
  const update = (e: StreamEvent) => e.data as unknown as Update;

  beforeAll(async () => {
    writeFileSync(join(ui, 'index.html'), '<!doctype html><title>console</title>');
    stack = await startStack({ auth: true, uiDir: ui });
    ops = consoleClient(stack.console.url);
    await ops.request('POST', '/api/session', { credential: OPERATOR_KEY });
  });
  afterAll(async () => {
    await stack.close();
    rmSync(ui, { recursive: true, force: true });
  });

  it('relays WatchRun as Server-Sent Events: each progress update while the run goes on, then the result', async () => {
    const run = await start(ops, 'sse-a', { label: 'sse-a', parts: 2 });
    expect(run.runId).toMatch(/\S/);
    const events = ops.stream(`${RUNS}/WatchRun`, { runId: run.runId });
    // Nothing is released yet: the run cannot end before the page has seen it wait for part 1.
    await readUntil(events, (e) => update(e).run?.progress?.message === 'waiting for part 1 of 2');
    exportGate.release('sse-a');
    const first = await readUntil(events, (e) => (update(e).run?.progress?.progress ?? 0) >= 1);
    expect(first.flatMap((e) => update(e).newLogLines ?? [])).toContain('sse-a: part 1 written');
    expect(update(first.at(-1)!).final ?? false).toBe(false);
    exportGate.release('sse-a');
    const rest = await readUntil(events, (e) => e.event === 'end');
    const last = rest.filter((e) => e.event === 'message').at(-1)!;
    expect(update(last)).toMatchObject({ final: true, run: { state: 'RUN_STATE_SUCCEEDED', progress: { progress: 2, total: 2 } } });
    expect(update(last).run.result?.content?.[0]?.text).toBe('exported 2 parts of sse-a');
    expect(rest.some((e) => e.event === 'error')).toBe(false);
  });

  it('ends a stream that fails after its first message with an error event (RunToolStream of a tool failing mid-way)', async () => {
    const events = ops.stream(`${RUNS}/RunToolStream`, { run: { provider: 'local', name: 'slow_export', arguments: { label: 'fail-f', parts: 2, failAtPart: 1 } } });
    const first = await readUntil(events, () => true);
    expect(first[0]).toMatchObject({ event: 'message', data: { progress: { message: 'waiting for part 1 of 2' } } });
    exportGate.release('fail-f');
    const rest = await readUntil(events, (e) => e.event === 'end');
    const error = rest.find((e) => e.event === 'error');
    expect(errorOf({ body: error!.data })).toMatchObject({ code: 'failed', message: expect.stringMatching(/refused part 1 of fail-f/) });
    expect(rest.at(-1)!.event).toBe('end');
  });

  it('answers a WatchRun of an unknown run as a JSON NOT_FOUND with the API message, not as a stream', async () => {
    const [e] = await readUntil(ops.stream(`${RUNS}/WatchRun`, { runId: 'run_0000000000000_doesnotexist' }), () => true);
    expect(e).toMatchObject({ event: 'json', status: 404 });
    expect(errorOf({ body: e!.data })).toMatchObject({ code: 'not_found', grpcStatus: 'NOT_FOUND', message: expect.stringMatching(/ListRuns shows yours/) });
  });

  it("keeps a run invisible to another principal (NOT_FOUND on GetRun, WatchRun and CancelRun)", async () => {
    const run = await start(ops, 'private-b');
    const admin = consoleClient(stack.console.url);
    await admin.request('POST', '/api/session', { credential: ADMIN_KEY });
    for (const method of ['GetRun', 'CancelRun']) {
      const r = await admin.request('POST', `${RUNS}/${method}`, { runId: run.runId });
      expect({ method, status: r.status, code: errorOf(r).code }).toEqual({ method, status: 404, code: 'not_found' });
    }
    const [watched] = await readUntil(admin.stream(`${RUNS}/WatchRun`, { runId: run.runId }), () => true);
    expect(watched).toMatchObject({ event: 'json', status: 404 });
    expect(((await admin.request('POST', `${RUNS}/ListRuns`, {})).body['runs'] as Run[] | undefined)?.map((r) => r.runId) ?? []).not.toContain(run.runId);
    await ops.request('POST', `${RUNS}/CancelRun`, { runId: run.runId, reason: 'test over' });
  });

  it('cancels a running run through CancelRun: the tool is aborted at the adapter and the watcher sees CANCELLED', async () => {
    const run = await start(ops, 'cancel-c', { label: 'cancel-c', parts: 3 });
    const events = ops.stream(`${RUNS}/WatchRun`, { runId: run.runId });
    await readUntil(events, (e) => update(e).run?.state === 'RUN_STATE_RUNNING');
    const c = await ops.request('POST', `${RUNS}/CancelRun`, { runId: run.runId, reason: 'operator pressed cancel' });
    expect(c.status).toBe(200);
    const rest = await readUntil(events, (e) => e.event === 'end');
    const last = update(rest.filter((e) => e.event === 'message').at(-1)!);
    expect(last).toMatchObject({ final: true, run: { state: 'RUN_STATE_CANCELLED' } });
    expect(last.run.error?.message).toMatch(/operator pressed cancel/);
    expect(exportGate.aborted.has('cancel-c')).toBe(true);
  });

  it('lists the caller’s runs newest first, paged and filtered by state', async () => {
    const all = await ops.request('POST', `${RUNS}/ListRuns`, { pageSize: 1 });
    expect(all.status).toBe(200);
    expect(all.body['runs'] as Run[]).toHaveLength(1);
    const next = await ops.request('POST', `${RUNS}/ListRuns`, { pageSize: 1, pageToken: all.body['nextPageToken'] });
    expect((next.body['runs'] as Run[])[0]!.runId).not.toBe((all.body['runs'] as Run[])[0]!.runId);
    const cancelled = await ops.request('POST', `${RUNS}/ListRuns`, { state: 'RUN_STATE_CANCELLED' });
    const states = (cancelled.body['runs'] as Run[]).map((r) => r.state);
    expect(states.length).toBeGreaterThan(0);
    expect(new Set(states)).toEqual(new Set(['RUN_STATE_CANCELLED']));
  });

  it('gives StartRun’s refusal as the API gives it (NOT_FOUND with close matches), and a run with bad arguments fails with the field', async () => {
    const unknown = await ops.request('POST', `${RUNS}/StartRun`, { call: { provider: 'local', name: 'slow_exprt', arguments: {} } });
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown).message).toMatch(/slow_export/);
    const run = await start(ops, 'bad-d', { label: 'bad-d', parts: 'many' });
    const events = await readUntil(ops.stream(`${RUNS}/WatchRun`, { runId: run.runId }), (e) => e.event === 'end');
    const last = update(events.filter((e) => e.event === 'message').at(-1)!);
    expect(last.run.state).toBe('RUN_STATE_FAILED');
    expect(last.run.error).toMatchObject({ code: 'ERROR_CODE_INVALID_ARGUMENT' });
    expect(last.run.error?.violations?.map((v) => v.field)).toContain('/parts');
  });

  it('needs the CSRF token for a stream too, and caps the streams one session holds open', async () => {
    const noCsrf = consoleClient(stack.console.url);
    await noCsrf.request('POST', '/api/session', { credential: OPERATOR_KEY });
    const run = await start(noCsrf, 'cap-e');
    noCsrf.forgetCsrf();
    const [refused] = await readUntil(noCsrf.stream(`${RUNS}/WatchRun`, { runId: run.runId }), () => true);
    expect(refused).toMatchObject({ event: 'json', status: 403 });

    const abort = new AbortController();
    const open: Array<AsyncGenerator<StreamEvent>> = [];
    try {
      for (let i = 0; i < 8; i++) {
        const s = ops.stream(`${RUNS}/WatchRun`, { runId: run.runId }, abort.signal);
        await readUntil(s, () => true); // the first update: the stream is open
        open.push(s);
      }
      const [ninth] = await readUntil(ops.stream(`${RUNS}/WatchRun`, { runId: run.runId }), () => true);
      expect(ninth).toMatchObject({ event: 'json', status: 429 });
      expect(errorOf({ body: ninth!.data }).message).toMatch(/at most 8/);
      expect(stack.dispatcher.dispatcher.asyncRuns!.watchers).toBeGreaterThanOrEqual(8);
    } finally {
      abort.abort();
      await Promise.all(open.map((s) => s.return(undefined).catch(() => undefined)));
    }
    // The pages went away: the console cancelled their WatchRun calls, and the dispatcher let go of its watchers.
    await waitFor(() => stack.dispatcher.dispatcher.asyncRuns!.watchers === 0, { timeoutMs: 20_000, message: 'the WatchRun watchers to be released' });
    await ops.request('POST', `${RUNS}/CancelRun`, { runId: run.runId });
  });
});
