import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { isStoreError } from '../src/index';
import { EmbeddedRegistryStore } from '../src/embedded';
import { MongoRegistryStore } from '../src/mongo';
import { withStoreDefaults } from '../src/options';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolhub-store-factory-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err,
  );
}

describe('EmbeddedRegistryStore.open', () => {
  it('refuses a directory that is already open in this process, and opens it again after close', async () => {
    const store = await EmbeddedRegistryStore.open({ dir });
    const err = await failure(EmbeddedRegistryStore.open({ dir }));
    expect(isStoreError(err, 'locked')).toBe(true);
    expect((err as Error).message).toMatch(/already open in this process/);
    await store.close();
    const again = await EmbeddedRegistryStore.open({ dir });
    await again.close();
  });

  it('refuses a directory locked by another live process, naming it', async () => {
    await writeFile(join(dir, 'LOCK'), `${process.ppid}\n`);
    const err = await failure(EmbeddedRegistryStore.open({ dir }));
    expect(isStoreError(err, 'locked')).toBe(true);
    expect((err as Error).message).toContain(`process ${process.ppid}`);
  });

  it('takes over the lock of a process that is gone (a crash) and releases it on close', async () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    await writeFile(join(dir, 'LOCK'), `${gone.stdout}\n`);
    const store = await EmbeddedRegistryStore.open({ dir });
    expect((await readFile(join(dir, 'LOCK'), 'utf8')).trim()).toBe(String(process.pid));
    await store.close();
    await expect(readFile(join(dir, 'LOCK'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('rejects bad options, naming the field', async () => {
    for (const [options, field] of [
      [{ dir: '' }, 'dir'],
      [{ dir, maxBatchEvents: 0 }, 'maxBatchEvents'],
      [{ dir, maxBatchEvents: 10_000 }, 'maxBatchEvents'],
      [{ dir, dedupWindowMs: -1 }, 'dedupWindowMs'],
      [{ dir, compactionIntervalMs: 1.5 }, 'compactionIntervalMs'],
      [{ dir, statsFlushMs: 90_000 }, 'statsFlushMs'],
      [{ dir, statsFlushMs: 'soon' as unknown as number }, 'statsFlushMs'],
    ] as const) {
      const err = await failure(EmbeddedRegistryStore.open(options));
      expect(isStoreError(err, 'invalid_options')).toBe(true);
      expect((err as Error).message).toContain(field);
    }
  });
});

describe('withStoreDefaults', () => {
  it('keeps a stale-batch sweep off batches that only wait for their write: recoverAfterMs defaults to max(60 s, 2 × statsFlushMs)', () => {
    expect(withStoreDefaults({}).recoverAfterMs).toBe(60_000);
    expect(withStoreDefaults({ statsFlushMs: 10_000 }).recoverAfterMs).toBe(60_000);
    expect(withStoreDefaults({ statsFlushMs: 60_000 }).recoverAfterMs).toBe(120_000);
    expect(withStoreDefaults({ statsFlushMs: 60_000, recoverAfterMs: 45_000 }).recoverAfterMs).toBe(45_000);
  });
});

describe('MongoRegistryStore.connect', () => {
  it('rejects a URL that is not mongodb:// and a bad database name', async () => {
    expect(isStoreError(await failure(MongoRegistryStore.connect({ url: 'http://127.0.0.1:27017' })), 'invalid_options')).toBe(true);
    expect(isStoreError(await failure(MongoRegistryStore.connect({ url: 'mongodb://127.0.0.1:1/', dbName: 'a.b' })), 'invalid_options')).toBe(true);
  });

  it('fails with a retryable backend error, without the password, when no server answers', async () => {
    const server = createServer();
    const port = await new Promise<number>((done) => server.listen(0, '127.0.0.1', () => done((server.address() as { port: number }).port)));
    await new Promise((done) => server.close(done));
    const err = await failure(MongoRegistryStore.connect({ url: `mongodb://reg:s3cret@127.0.0.1:${port}/`, connectTimeoutMs: 300 }));
    expect(isStoreError(err, 'backend')).toBe(true);
    expect((err as { retryable: boolean }).retryable).toBe(true);
    expect((err as Error).message).toContain(`127.0.0.1:${port}`);
    expect((err as Error).message).not.toContain('s3cret');
  });
});
