/**
 * Who owns an outbox directory, and whether that owner is still running.
 *
 * A pid alone is not an identity: a restart within a second of `kill -9` found the dead owner's pid
 * still "alive" (a zombie not yet reaped, or the pid reused), and left its events on disk until yet
 * another restart. So an owner is its pid plus the kernel's start time of that process
 * (`/proc/<pid>/stat` field 22, clock ticks since boot): a zombie (state Z/X), a missing pid or the
 * same pid with another start time is a dead owner. Where `/proc` is missing (not Linux) the pid
 * check alone remains.
 *
 * Why not flock(2): Node has no binding for it, and the native addons that add one build with
 * node-gyp, which needs headers from the internet at install time.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** Contents of an outbox directory's owner file. */
export interface OwnerRecord {
  pid: number;
  host: string;
  startedUnixMs: number;
  /** Kernel start time of the owner process (Linux); absent in files of older dispatchers. */
  procStart?: number;
}

const PROCESS_STARTED_MS = Date.now() - process.uptime() * 1000;

/** This process as an owner record. */
export function ownRecord(): OwnerRecord {
  const stat = procStat(process.pid);
  return { pid: process.pid, host: hostname(), startedUnixMs: Date.now(), ...(stat ? { procStart: stat.start } : {}) };
}

/** Whether `owner` (of this host) is a process that is still running. */
export function ownerAlive(owner: Partial<OwnerRecord>): boolean {
  if (!owner.pid) return false;
  const stat = procStat(owner.pid);
  if (stat !== null) {
    if (stat === undefined || stat.state === 'Z' || stat.state === 'X' || stat.state === 'x') return false;
    if (owner.procStart !== undefined) return stat.start === owner.procStart;
  }
  // No /proc, or an owner file without a start time (an older dispatcher).
  if (owner.pid === process.pid) {
    // Our pid: this very process (another publisher in it) if written since we started, else an
    // earlier run in a container, where every run is pid 1.
    return (owner.startedUnixMs ?? 0) >= PROCESS_STARTED_MS;
  }
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * State and start time of `pid` from /proc: undefined when there is no such process, null when
 * /proc cannot tell (not Linux).
 */
function procStat(pid: number): { state: string; start: number } | undefined | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return null;
    try {
      readFileSync('/proc/self/stat');
      return undefined; // /proc works: the process is gone.
    } catch {
      return null;
    }
  }
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const start = Number(fields[19]);
  return { state: fields[0] ?? '', start };
}
