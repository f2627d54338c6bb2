/** Which processes a process has started, and whether a pid is still alive (Linux `ps`). */
import { execFileSync } from 'node:child_process';

/** One child process as `ps` shows it. */
export interface ProcessRow {
  pid: number;
  /** `ps` state, e.g. `S`, `Z` (zombie). */
  stat: string;
  args: string;
}

/** Direct children of `pid` (default: this process), from `ps --ppid`, without that `ps` itself. */
export function childrenOf(pid = process.pid): ProcessRow[] {
  let out = '';
  try {
    out = execFileSync('ps', ['--ppid', String(pid), '-o', 'pid=,stat=,args='], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when nothing matches
  }
  return out
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [p, stat, ...args] = l.split(/\s+/);
      return { pid: Number(p), stat: stat ?? '', args: args.join(' ') };
    })
    .filter((c) => !c.args.startsWith('ps --ppid'));
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
