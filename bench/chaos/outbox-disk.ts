/**
 * The chaos dispatcher's outbox on a small disk of its own (a tmpfs mount), which the disk-full
 * scenarios fill and free, and the torn-record scenario damages. Mounting needs root (as on the
 * project's machines and CI); without it the disk scenarios say so instead of running.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, closeSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

import { frameRecord } from '../../libs/dispatcher-core/src/outbox/frames';

const FILLER = 'filler.bin';

export interface OutboxDisk {
  readonly dir: string;
  /** Whether `dir` is a disk of its own that can be filled. */
  readonly mounted: boolean;
  /** Writes until the disk refuses (ENOSPC). @throws when the outbox is not on a disk of its own */
  fill(): void;
  free(): void;
  /** Damages the newest segment of every dead dispatcher's directory: garbage, then a torn record. */
  tear(): number;
  close(): void;
}

/** Mounts a tmpfs of `sizeKiB` at `dir` when it can (root); otherwise `dir` stays a plain directory. */
export function outboxDisk(dir: string, sizeKiB: number): OutboxDisk {
  let mounted = false;
  let why = '';
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKiB}k,mode=0755`, 'tmpfs', dir], { stdio: 'pipe' });
    mounted = true;
  } catch (err) {
    why = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim();
  }
  let refill: NodeJS.Timeout | undefined;
  /** Writes until the disk refuses: whole chunks, then the small remainder a chunk no longer fits in. */
  const fillUp = (): void => {
    for (const size of [64 * 1024, 512]) {
      const fd = openSync(join(dir, FILLER), 'a');
      try {
        for (;;) writeSync(fd, Buffer.alloc(size));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        closeSync(fd);
      }
    }
  };
  return {
    dir,
    mounted,
    fill() {
      if (!mounted) throw new Error(`the outbox is not on a disk of its own (mount of a tmpfs at ${dir} failed: ${why}); the disk-full scenarios need root`);
      fillUp();
      // Space the dispatcher frees (segments deleted once stored) is taken again at once: the disk stays full until free().
      refill = setInterval(fillUp, 20);
    },
    free() {
      clearInterval(refill);
      rmSync(join(dir, FILLER), { force: true });
    },
    tear() {
      let torn = 0;
      for (const owner of readdirSync(dir).filter((f) => f.startsWith('dispatcher-') || f.startsWith('recovering-'))) {
        const segs = readdirSync(join(dir, owner)).filter((f) => f.startsWith('seg-')).sort();
        const last = segs[segs.length - 1];
        if (!last || statSync(join(dir, owner, last)).size === 0) continue;
        appendFileSync(join(dir, owner, last), Buffer.concat([Buffer.from('torn-garbage'), frameRecord(new Uint8Array(200)).subarray(0, 50)]));
        torn++;
      }
      return torn;
    },
    close() {
      if (!mounted) return;
      try {
        execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      } catch {
        // Busy or gone; the scratch directory's cleanup follows.
      }
    },
  };
}
