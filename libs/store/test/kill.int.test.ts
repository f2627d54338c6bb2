/**
 * A writer process is killed with SIGKILL in the middle of its stream of batches (as the registry
 * can be); the unacknowledged batches are then redelivered to a new store on the same data, as
 * JetStream would. The counts must be exact: nothing lost, nothing counted twice. Also with the
 * statistics written later (statsFlushMs): the kill then also falls while acknowledged batches
 * wait for their write, or in the middle of it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

import { mongoUrl } from '@toolhub/test-harness';
import { MongoClient } from 'mongodb';

import { type RegistryStore } from '../src/index';
import { EmbeddedRegistryStore } from '../src/embedded';
import { MongoRegistryStore } from '../src/mongo';
import { KILL_TOOLS, NEW_PER_BATCH, expectedCounts, killBatch } from './support/kill-batches';

const ROOT = resolve(__dirname, '../../..');
const CHILD = join(__dirname, 'support/record-until-killed.ts');
const ROUNDS = 3;

interface Target {
  args: string[];
  open(): Promise<RegistryStore>;
  cleanup(): Promise<void>;
}

/** Starts the writer on the stream of `epochMs`, lets it ack at least `minAcks` batches, kills it at a random moment; returns the last batch it acked. */
async function runAndKill(args: readonly string[], minAcks: number, statsFlushMs: number, epochMs: number): Promise<number> {
  // `node --import tsx`, not the tsx CLI: the CLI runs the script in a grandchild that SIGKILL would miss.
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, STATS_FLUSH_MS: String(statsFlushMs), KILL_EPOCH_MS: String(epochMs) },
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  // 'close', not 'exit': it comes after the child's stdout has ended, so every "acked" line the
  // child wrote before the kill has been read (lastAcked is then the last batch it really acked).
  const closed = new Promise<void>((done) => child.once('close', () => done()));
  let lastAcked = -1;
  try {
    await new Promise<void>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`writer acked only ${lastAcked + 1} batches in 60 s; stderr: ${stderr}`)), 60_000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        fail(new Error(`writer exited early (${code}): ${stderr}`));
      });
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const m = /^acked (\d+)$/.exec(line);
        if (!m) return;
        lastAcked = Number(m[1]);
        if (lastAcked + 1 >= minAcks) {
          clearTimeout(timer);
          // A random moment inside the next write.
          setTimeout(() => {
            child.kill('SIGKILL');
            done();
          }, Math.random() * 8);
        }
      });
    });
  } finally {
    child.kill('SIGKILL');
    await closed;
  }
  return lastAcked;
}

async function expectExact(store: RegistryStore, batches: number): Promise<void> {
  for (const [toolId, want] of expectedCounts(batches)) {
    const stats = await store.getToolStats(toolId);
    expect({ toolId, calls: stats?.calls, failures: stats?.failureCount }).toEqual({ toolId, calls: want.calls, failures: want.failures });
  }
}

function killSuite(name: string, makeTarget: () => Promise<Target>): void {
  // 0: written before each ack; 25 ms: a few acknowledged batches wait for each write.
  for (const statsFlushMs of [0, 25]) {
    it(
      `${name}: counts exactly after the writer is killed mid-stream and the unacknowledged batches are redelivered${statsFlushMs ? ` (statistics written every ${statsFlushMs} ms)` : ''}`,
      async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const target = await makeTarget();
          // One time base for the child's deliveries and this test's redeliveries (kill-batches.ts).
          const epochMs = Date.now();
          const batch = (i: number) => killBatch(i, epochMs);
          try {
            const lastAcked = await runAndKill(target.args, 3 + Math.floor(Math.random() * 6), statsFlushMs, epochMs);
            const store = await target.open();
            try {
              // JetStream redelivers what was not acked (the batch in flight), and may repeat acked ones.
              const inFlight = lastAcked + 1;
              const redelivered = await store.recordCalls(batch(inFlight));
              expect(redelivered.recorded + redelivered.duplicates).toBe(batch(inFlight).length);
              await expectExact(store, inFlight + 1);
              const again = await store.recordCalls([batch(0), batch(inFlight)].flat());
              expect(again.recorded).toBe(0);
              await expectExact(store, inFlight + 1);
              const total = (await Promise.all(KILL_TOOLS.map((t) => store.getToolStats(t)))).reduce((n, s) => n + (s?.calls ?? 0), 0);
              expect(total).toBe((inFlight + 1) * NEW_PER_BATCH);
            } finally {
              await store.close();
            }
          } finally {
            await target.cleanup();
          }
        }
      },
      180_000,
    );
  }
}

describe('a writer killed with SIGKILL', () => {
  killSuite('EmbeddedRegistryStore', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toolhub-store-kill-'));
    return {
      args: ['embedded', dir],
      open: () => EmbeddedRegistryStore.open({ dir }),
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  });

  killSuite('MongoRegistryStore', async () => {
    const url = await mongoUrl();
    const dbName = `toolhub_store_kill_${randomBytes(4).toString('hex')}`;
    return {
      args: ['mongo', url, dbName],
      open: () => MongoRegistryStore.connect({ url, dbName }),
      cleanup: async () => {
        const admin = new MongoClient(url);
        try {
          await admin.db(dbName).dropDatabase();
        } finally {
          await admin.close();
        }
      },
    };
  });
});
