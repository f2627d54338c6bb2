/**
 * Soak: many RunTool calls against ToolHub in one-process mode (the built bundle,
 * `node dist/apps/toolhub/main.js`), watching the process's memory and the embedded store's disk
 * use. A script, not a test: it prints a table and writes bench/results/soak.json.
 *
 *   npm run bench -- soak [--calls 1000000] [--concurrency 16] [--settle-ms 20000] [--sample-every 10000]
 *
 * RSS is read from /proc/<pid>/status (Linux) after the first 10,000 calls, every `--sample-every`
 * calls, and after a settle (no calls for `--settle-ms`, so the statistics are written and timers
 * have run). The aim (issue 12): RSS after the settle within 30 MB of the RSS after the first
 * 10,000 calls, and a bounded, stated disk use of the embedded store (TOOLHUB_DATA_DIR).
 */
import { credentials } from '@grpc/grpc-js';
import { RunStatus, ToolHubClient } from '@toolhub/contracts';
import { freePort, scratchDir, spawnProcess, type SpawnedProcess, repoRoot } from '@toolhub/test-harness';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';

import { writeResult } from '../search/data';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

const CALLS = Number(arg('calls', '1000000'));
const CONCURRENCY = Number(arg('concurrency', '16'));
const SETTLE_MS = Number(arg('settle-ms', '20000'));
const SAMPLE_EVERY = Number(arg('sample-every', '10000'));
const FIRST = 10_000;
const ROOT = repoRoot(__dirname);
const log = (msg: string) => process.stderr.write(`${msg}\n`);

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 102.4) / 10 : NaN;
}

function dirMb(dir: string): number {
  let bytes = 0;
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) bytes += statSync(p).size;
    }
  };
  walk(dir);
  return Math.round(bytes / 104857.6) / 10;
}

interface Sample {
  calls: number;
  rssMb: number;
  storeMb: number;
  seconds: number;
}

async function main(): Promise<void> {
  log('building apps/toolhub ...');
  execFileSync(process.execPath, ['scripts/build.mjs', 'apps/toolhub', 'src/main.ts'], { cwd: ROOT, stdio: 'inherit' });
  const dataDir = scratchDir('soak-data');
  const port = await freePort();
  const app: SpawnedProcess = await spawnProcess(process.execPath, ['dist/apps/toolhub/main.js'], {
    cwd: ROOT,
    env: { TOOLHUB_GRPC_PORT: String(port), TOOLHUB_MCP_PORT: '0', TOOLHUB_CONSOLE_PORT: '0', TOOLHUB_ADMIN_PORT: '0', TOOLHUB_DATA_DIR: dataDir, TOOLHUB_MCP: 'false', TOOLHUB_CLOUD: 'false', LOG_LEVEL: 'warn' },
    readyPattern: /ToolHub is running/,
    timeoutMs: 120_000,
  });
  const client = new ToolHubClient(`127.0.0.1:${port}`, credentials.createInsecure());
  const samples: Sample[] = [];
  const started = Date.now();
  const sample = (calls: number): void => {
    const s = { calls, rssMb: rssMb(app.pid), storeMb: dirMb(join(dataDir, 'registry')), seconds: Math.round((Date.now() - started) / 100) / 10 };
    samples.push(s);
    log(`  ${calls.toLocaleString('en')} calls: RSS ${s.rssMb} MB, store ${s.storeMb} MB, ${s.seconds} s`);
  };
  const runTool = (i: number) =>
    new Promise<void>((res, rej) =>
      client.runTool(
        { provider: 'local', name: 'text_stats', arguments: { text: `soak call ${i}: the quick brown fox jumps over the lazy dog` }, timeoutMs: 10_000, idempotencyKey: '', expectedVersion: '', caller: `agent-${i % 8}`, searchId: '' },
        (err, r) => (err ? rej(err) : r.status === RunStatus.RUN_STATUS_OK ? res() : rej(new Error(JSON.stringify(r.error)))),
      ),
    );
  let next = 0;
  let done = 0;
  let failed = 0;
  let nextSample = FIRST;
  try {
    sample(0);
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < CALLS) {
          const i = next++;
          await runTool(i).catch(() => void failed++);
          done++;
          if (done >= nextSample) {
            nextSample += SAMPLE_EVERY;
            sample(done);
          }
        }
      }),
    );
    const callSeconds = (Date.now() - started) / 1000;
    log(`settling ${SETTLE_MS} ms ...`);
    // A sample every 20 s of the settle too (marked by the time column), so one run shows how fast
    // V8 gives memory back once the process is idle; the last one is "after the settle".
    for (let waited = 0; waited < SETTLE_MS; ) {
      const step = Math.min(20_000, SETTLE_MS - waited);
      await new Promise((r) => setTimeout(r, step));
      waited += step;
      sample(done);
    }
    const first = samples.find((s) => s.calls >= FIRST) ?? samples[0]!;
    const settled = samples[samples.length - 1]!;
    const result = {
      benchmark: 'soak',
      date: new Date().toISOString(),
      loadavg: loadavg().map((x) => Math.round(x * 100) / 100),
      calls: done,
      failed,
      concurrency: CONCURRENCY,
      callsPerSecond: Math.round(done / callSeconds),
      rssAfterFirstMb: first.rssMb,
      rssAfterSettleMb: settled.rssMb,
      rssGrowthMb: Math.round((settled.rssMb - first.rssMb) * 10) / 10,
      storeMbAtEnd: settled.storeMb,
      aimMet: settled.rssMb - first.rssMb <= 30,
      samples,
    };
    process.stdout.write(
      `\n| calls | RSS MB | embedded store MB | s |\n| --- | --- | --- | --- |\n${samples.map((s) => `| ${s.calls.toLocaleString('en')} | ${s.rssMb} | ${s.storeMb} | ${s.seconds} |`).join('\n')}\n\n` +
        `${done.toLocaleString('en')} calls (${failed} failed) at ${result.callsPerSecond}/s; RSS after ${first.calls.toLocaleString('en')} calls ${first.rssMb} MB, after the settle ${settled.rssMb} MB ` +
        `(growth ${result.rssGrowthMb} MB, aim ≤ 30: ${result.aimMet ? 'met' : 'missed'}); embedded store ${settled.storeMb} MB\n`,
    );
    log(`wrote ${writeResult(arg('out', 'soak'), result)}`);
  } finally {
    client.close();
    await app.kill('SIGTERM');
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`soak failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
