/**
 * Fuzz test at the gRPC edge: more than 10,000 deterministically generated bad requests (seeded
 * PRNG) against the dispatcher and adapter-local running as separate processes over a real
 * nats-server. Raw bytes are sent with an identity serializer, so the test controls every byte:
 * malformed protobuf, invalid UTF-8, wrong wire types, unknown fields, random mutations of valid
 * requests, and structurally valid requests with bad content (wrong argument types, unknown tools
 * and providers, deeply nested and malformed JSON, 1–8 MB strings, absurd timeouts and deadlines).
 *
 * Asserted: every reply is a well-formed error (a known gRPC status, never INTERNAL, a non-empty
 * message and the server's decodable ErrorInfo trailer; only a request sent with a deadline of at
 * most 1 s may end at the client's own deadline) or a success of a request generated as valid; no
 * process crashes; the dispatcher's memory returns to its baseline (RSS after a settle period
 * ≤ max(baseline + 64 MiB, 1.5 × baseline), the baseline taken after 2,000 requests of warm-up —
 * another process's GC cannot be forced, so this is the bound).
 */
import { Client, credentials, Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { RunToolResponse, ToolHubService } from '@toolhub/contracts';
import { freePort, type NatsServerHandle, scratchDir, spawnProcess, type SpawnedProcess, startNatsServer } from '@toolhub/test-harness';
import { readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';

import { type Case, encodeRun, isHuge, judge, makeCase, makeCaseValid, type Reply } from './support/fuzz-cases';

const ROOT = join(__dirname, '../..');
const TS_NODE = ['--import', 'tsx'];
/** 12,000 requests, of which more than 10,000 are bad (the rest are valid ones mixed in). */
const CASES = 12_000;
/** Requests before the memory baseline is taken: enough for V8's heap to reach its working size. */
const WARM_UP = 2000;
const CONCURRENCY = 32;
const MIB = 1024 * 1024;
/** Memory may grow by at most this much over the post-warm-up baseline (heap growth, JIT code, pools). */
const RSS_SLACK = 64 * MIB;
/** ...or by this factor, whichever allows more. */
const RSS_FACTOR = 1.5;
/** Longest idle wait for the memory to come back. */
const SETTLE_MS = 30_000;

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

const mib = (n: number) => Math.round((n / MIB) * 10) / 10;

describe('fuzz at the gRPC edge', () => {
  let adapter: SpawnedProcess | undefined;
  let dispatcher: SpawnedProcess | undefined;
  let natsServer: NatsServerHandle | undefined;
  let client: Client;

  beforeAll(async () => {
    // A private nats-server, even when NATS_URL names a shared one: another test's adapter-local on
    // the same server would join the queue group of provider `local` (with another tool root).
    natsServer = await startNatsServer();
    const nats = natsServer.url;
    const root = scratchDir('fuzz-root');
    writeFileSync(join(root, 'notes.txt'), 'hello from the tool root\n');
    const port = await freePort();
    [adapter, dispatcher] = await Promise.all([
      spawnProcess(process.execPath, [...TS_NODE, 'apps/adapter-local/src/main.ts'], {
        cwd: ROOT,
        env: { NATS_URL: nats, TOOLHUB_LOCAL_ROOT: root, LOG_LEVEL: 'info' },
        readyPattern: /adapter-local ready/,
        timeoutMs: 45_000,
      }),
      spawnProcess(process.execPath, [...TS_NODE, 'apps/dispatcher/src/main.ts'], {
        cwd: ROOT,
        env: { NATS_URL: nats, TOOLHUB_GRPC_PORT: String(port), TOOLHUB_MCP_PORT: '0', LOG_LEVEL: 'info' },
        readyPattern: /dispatcher listening/,
        timeoutMs: 45_000,
      }),
    ]);
    // Room for the 8 MB requests on the client side; the server enforces its own limits.
    client = new Client(`127.0.0.1:${port}`, credentials.createInsecure(), { 'grpc.max_send_message_length': 64 * MIB, 'grpc.max_receive_message_length': 64 * MIB });
  }, 100_000);

  afterAll(async () => {
    client?.close();
    await Promise.all([dispatcher?.kill('SIGTERM'), adapter?.kill('SIGTERM')]);
    await natsServer?.dispose();
  });

  const send = (c: Case): Promise<Reply> =>
    new Promise((resolve) => {
      const started = Date.now();
      client.makeUnaryRequest(
        c.path,
        (b: Buffer) => b,
        (b: Buffer) => b,
        c.bytes,
        new Metadata(),
        { deadline: Date.now() + c.deadlineMs },
        (err: ServiceError | null, body?: Buffer) => resolve({ ...(err ? { err } : { body: body! }), ms: Date.now() - started }),
      );
    });

  it('answers more than 10,000 bad requests with well-formed errors, crashes nothing and returns to its memory baseline', async () => {
    const dispatcherPid = dispatcher!.pid;
    const problems: string[] = [];
    const knownIssues: Record<string, number> = {};
    const byCategory: Record<string, { n: number; ok: number; maxMs: number; codes: Record<string, number> }> = {};
    const slowest: Array<{ id: number; category: string; ms: number }> = [];
    let sentBytes = 0;
    let bad = 0;
    let peakRss = 0;

    const handle = (c: Case, reply: Reply): void => {
      const stats = (byCategory[c.category.replace(/ \(\d+ MiB\)$/, '')] ??= { n: 0, ok: 0, maxMs: 0, codes: {} });
      stats.n++;
      stats.maxMs = Math.max(stats.maxMs, reply.ms);
      if (reply.err) {
        const code = status[reply.err.code] ?? String(reply.err.code);
        stats.codes[code] = (stats.codes[code] ?? 0) + 1;
      } else stats.ok++;
      slowest.push({ id: c.id, category: c.category, ms: reply.ms });
      slowest.sort((x, y) => y.ms - x.ms).splice(5);
      let verdict;
      try {
        verdict = judge(c, reply);
      } catch (err) {
        verdict = { problem: `reply could not be read: ${(err as Error).message}` };
      }
      if (verdict.knownIssue) knownIssues[verdict.knownIssue] = (knownIssues[verdict.knownIssue] ?? 0) + 1;
      if (verdict.problem && problems.length < 50) problems.push(`#${c.id} [${c.category}] ${c.path}: ${verdict.problem.slice(0, 400)}`);
    };

    /** Sends `ids` with `concurrency` requests in flight; each case is generated when it is sent. */
    const sendAll = async (ids: number[], concurrency: number): Promise<void> => {
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < ids.length) {
          const c = makeCase(ids[next++]!);
          sentBytes += c.bytes.length;
          if (c.category !== 'valid') bad++;
          handle(c, await send(c));
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    };
    /**
     * Cases [from, to): the small ones at full concurrency, then the 1–8 MB ones four at a time.
     * Amid a flood of small calls on one HTTP/2 connection grpc-js takes seconds to receive a
     * multi-megabyte message (flow-control window updates wait behind the small calls): that is
     * transport throughput, not an error path, so the two are not mixed.
     */
    const run = async (from: number, to: number): Promise<void> => {
      const ids = Array.from({ length: to - from }, (_, i) => from + i);
      await sendAll(ids.filter((id) => !isHuge(id)), CONCURRENCY);
      await sendAll(ids.filter(isHuge), 4);
    };

    const sampler = setInterval(() => {
      try {
        peakRss = Math.max(peakRss, rssBytes(dispatcherPid));
      } catch {
        // the process is gone: the exit-code checks below say so
      }
    }, 200);
    try {
      const t0 = Date.now();
      await run(0, WARM_UP);
      await sleep(1000);
      const baseline = rssBytes(dispatcherPid);
      // Half-way sample: a leak grows with the requests, a working set levels off.
      const mid = Math.round((WARM_UP + CASES) / 2);
      await run(WARM_UP, mid);
      const halfway = rssBytes(dispatcherPid);
      await run(mid, CASES);
      const fuzzMs = Date.now() - t0;
      // Settle: light normal traffic, then idle. V8's memory reducer collects and gives memory back
      // once the process has been idle for several seconds (about 15 s here); we cannot force a GC
      // in another process, so wait for it, up to SETTLE_MS.
      for (let i = 0; i < 300; i++) await send(makeCaseValid(i));
      const allowed = Math.max(baseline + RSS_SLACK, baseline * RSS_FACTOR);
      const settleStart = Date.now();
      let after = rssBytes(dispatcherPid);
      while (after > allowed && Date.now() - settleStart < SETTLE_MS) {
        await sleep(1000);
        after = rssBytes(dispatcherPid);
      }
      const settledMs = Date.now() - settleStart;

      // Nothing crashed, and a normal call still works end to end.
      expect(dispatcher!.child.exitCode).toBeNull();
      expect(adapter!.child.exitCode).toBeNull();
      const check = await send({ ...makeCaseValid(0), method: 'runTool', path: ToolHubService.runTool.path, bytes: encodeRun({ arguments: { expression: '6 * 7' } }) });
      expect(check.err).toBeUndefined();
      expect(JSON.stringify(RunToolResponse.decode(check.body!).content)).toContain('42');

      process.stdout.write(
        `fuzz report: ${JSON.stringify({
          cases: CASES,
          badRequests: bad,
          concurrency: CONCURRENCY,
          fuzzSeconds: Math.round(fuzzMs / 100) / 10,
          sentMiB: mib(sentBytes),
          slowest,
          dispatcherRssMiB: { baseline: mib(baseline), halfway: mib(halfway), peak: mib(peakRss), afterSettle: mib(after), settledMs, allowed: mib(allowed) },
          adapterRssMiB: mib(rssBytes(adapter!.pid)),
          problems: problems.length,
          knownIssues,
          byCategory,
        })}\n`,
      );
      expect(bad).toBeGreaterThanOrEqual(10_000);
      expect(problems).toEqual([]);
      expect(after).toBeLessThanOrEqual(allowed);
    } finally {
      clearInterval(sampler);
    }
  }, 150_000);
});
