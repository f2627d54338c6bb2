/**
 * NeDB appends every write to its collection's file with `fs.promises.appendFile`: an open, a
 * write and a close, each a round trip through libuv's thread pool. The statistics of one flush
 * write hundreds of tool documents, so those round trips were a large share of the embedded store's
 * CPU per counted call (figures: bench/registry/README.md, "Figures the code cites"). Here each registered
 * file keeps one append handle open instead.
 *
 * NeDB makes these appends through one function of its shared storage module
 * (`storage.appendFileAsync`, called only by `Persistence.persistNewStateAsync`). It is replaced
 * once per process by one that writes through the kept handle of a registered file and calls the
 * original for any other file. The bytes written, and when the promise resolves, are as before
 * (written to the file, no fsync).
 *
 * Loading and compacting rewrite the file as a new one (`storage.crashSafeWriteFileLinesAsync`:
 * a temporary file, then a rename), after which a kept handle would write to the replaced file.
 * So that function is wrapped too: it drops the file's handle before it starts, and the next write
 * opens whatever file is there, whether the rewrite succeeded or not. NeDB runs a datastore's
 * rewrites and writes one at a time, so no write is in flight meanwhile.
 *
 * A file kept with `grouped` (the statistics: one flush replaces hundreds of tool documents, and
 * NeDB runs them one after another, each waiting for its append) has its appends queued and
 * written together, a group commit: its writes resolve at once, and the queue is written by the
 * next turn of the event loop, before any write to another kept file, before any rewrite and
 * before a release (all three in the same directory, i.e. the same store). So a store's files
 * hold a prefix of its writes, in order: a crash may lose the last grouped writes, never a grouped
 * write that a later write to another file follows (the statistics recorder deletes the batches a
 * flush wrote only after their statistics). A failed group write keeps its data, is tried again by
 * the next one, and fails that later write of its store (not another store's).
 */
import { type FileHandle, open } from 'node:fs/promises';
import { dirname } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the module object itself is patched; an ES import would be a copy
import storage = require('@seald-io/nedb/lib/storage');

interface Kept {
  handle: Promise<FileHandle> | undefined;
  /** Appends queued for a group commit (see the header); undefined for an ordinary file. */
  queued: string[] | undefined;
}

const kept = new Map<string, Kept>();
let original: Pick<typeof storage, 'appendFileAsync' | 'crashSafeWriteFileLinesAsync'> | undefined;
/** The group commit running or scheduled; later callers chain behind it. */
let committing: Promise<void> = Promise.resolve();
let scheduled = false;

/** Writes `data` through the file's kept handle when it is registered. */
async function appendFile(path: string, data: string, options?: { encoding?: BufferEncoding; mode?: number }): Promise<void> {
  const entry = kept.get(path);
  if (!entry) return original!.appendFileAsync(path, data, options);
  if (entry.queued) {
    entry.queued.push(data);
    if (!scheduled) {
      scheduled = true;
      setImmediate(() => void commitGroups().catch(() => undefined));
    }
    return;
  }
  await commitGroups(dirname(path));
  await write(entry, path, data, options?.mode);
}

async function write(entry: Kept, path: string, data: string, mode?: number): Promise<void> {
  entry.handle ??= open(path, 'a', mode);
  try {
    await (await entry.handle).appendFile(data, 'utf8');
  } catch (err) {
    // Whatever failed (a full disk, a file removed), the next write starts from a fresh open.
    drop(entry);
    throw err;
  }
}

/**
 * Writes the queued groups, each file's as one append; resolves when they are in the files. With
 * `dir`, only the files in that directory (one store's): another store's failing file does not
 * fail this one's writes.
 */
function commitGroups(dir?: string): Promise<void> {
  if (dir === undefined) scheduled = false;
  committing = committing.catch(() => undefined).then(async () => {
    for (const [path, entry] of kept) {
      if (dir !== undefined && dirname(path) !== dir) continue;
      const count = entry.queued?.length ?? 0;
      if (count === 0) continue;
      // Appends queued while this one is written wait for the next commit.
      await write(entry, path, entry.queued!.slice(0, count).join(''));
      entry.queued!.splice(0, count);
    }
  });
  return committing;
}

function drop(entry: Kept): void {
  const handle = entry.handle;
  entry.handle = undefined;
  void handle?.then((h) => h.close()).catch(() => undefined);
}

/** Drops the kept handle of the file about to be rewritten, then rewrites it. */
async function rewriteFile(filename: string, lines: string[], modes?: unknown): Promise<void> {
  await commitGroups(dirname(filename));
  const entry = kept.get(filename);
  if (entry) drop(entry);
  return original!.crashSafeWriteFileLinesAsync(filename, lines, modes);
}

/**
 * Keeps an append handle open for the NeDB file `filename` (as given to its Datastore) until
 * {@link releaseAppends}; dropped, and opened again by the next write, whenever NeDB rewrites it.
 */
export function keepAppendsOpen(filename: string, options: { grouped?: boolean } = {}): void {
  // A NeDB whose storage module no longer has both functions writes as it always did (slower, never wrong).
  if (typeof storage.appendFileAsync !== 'function' || typeof storage.crashSafeWriteFileLinesAsync !== 'function') return;
  if (!original) {
    original = { appendFileAsync: storage.appendFileAsync, crashSafeWriteFileLinesAsync: storage.crashSafeWriteFileLinesAsync };
    storage.appendFileAsync = appendFile;
    storage.crashSafeWriteFileLinesAsync = rewriteFile;
  }
  kept.set(filename, { handle: undefined, queued: options.grouped ? [] : undefined });
}

/** Closes the kept handle of `filename` and writes it as NeDB does again. */
export async function releaseAppends(filename: string): Promise<void> {
  const entry = kept.get(filename);
  if (!entry) return;
  await commitGroups(dirname(filename));
  kept.delete(filename);
  const handle = entry.handle;
  entry.handle = undefined;
  await handle?.then((h) => h.close()).catch(() => undefined);
}
