/**
 * One process per data directory: NeDB keeps the data in memory and appends to its files, so two
 * processes on one directory would overwrite each other's writes. A `LOCK` file holds the owner's
 * pid; a lock whose process is gone (a crash, a kill -9) is taken over.
 */
import { open, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { StoreError } from '../errors';

/** Directories open in this process (a second open here must fail too). */
const openHere = new Set<string>();

/**
 * Takes the lock of `dir`; returns its release function.
 * @throws StoreError locked when a live process (or this one) holds it.
 */
export async function lockDirectory(dir: string): Promise<() => Promise<void>> {
  const key = resolve(dir);
  const path = join(key, 'LOCK');
  if (openHere.has(key)) throw new StoreError('locked', `The registry data directory ${key} is already open in this process; close that store first.`);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(path, 'wx');
      try {
        await handle.writeFile(`${process.pid}\n`);
      } finally {
        await handle.close();
      }
      openHere.add(key);
      return async () => {
        openHere.delete(key);
        await rm(path, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new StoreError('backend', `Cannot create the lock file ${path}: ${(err as Error).message}`, { cause: err, retryable: false });
      }
      const owner = Number.parseInt((await readFile(path, 'utf8').catch(() => '')).trim(), 10);
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new StoreError(
          'locked',
          `The registry data directory ${key} is in use by process ${owner}. Stop that process, or give this one another directory.`,
          { retryable: true },
        );
      }
      // Left behind by a process that is gone: take it over.
      await rm(path, { force: true });
    }
  }
  throw new StoreError('locked', `Could not take the lock of ${key}: other processes keep taking it.`, { retryable: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
