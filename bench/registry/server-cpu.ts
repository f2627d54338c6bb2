/**
 * CPU time of the database server behind a MONGO_URL, for the ingestion cost per event: the
 * process listening on the URL's port and its children, and — for FerretDB on PostgreSQL — the
 * PostgreSQL server named by its `--postgresql-url` with its backends. Linux (/proc) only; on other
 * systems, or when the listener belongs to another user, the servers are simply not counted.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

function listenerInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address "0100007F:6989", state 0A = LISTEN, inode in column 10.
      if (f[3] === '0A' && parseInt(f[1]?.split(':')[1] ?? '', 16) === port && f[9]) inodes.add(f[9]);
    }
  }
  return inodes;
}

function pids(): number[] {
  return readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map(Number);
}

function parentOf(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** The process listening on `port`, if it can be found. */
function listener(port: number): number | undefined {
  const inodes = listenerInodes(port);
  if (inodes.size === 0) return undefined;
  for (const pid of pids()) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m && inodes.has(m[1]!)) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}

/** A process and its children (PostgreSQL serves each connection from a child). */
function withChildren(root: number): number[] {
  return [root, ...pids().filter((p) => parentOf(p) === root)];
}

function cpuMsOf(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

/** The database server processes behind `url` and a way to read their CPU time. */
export interface ServerCpu {
  /** What is counted, e.g. "ferretdb (pid 12) + postgres (pid 34, 3 backends)". */
  readonly label: string;
  /** CPU time (user + system) of those processes so far, ms; new backends are picked up. */
  cpuMs(): number;
}

/** Finds the servers behind a mongodb:// URL on this machine; undefined when not local. */
export function serverCpu(url: string): ServerCpu | undefined {
  const port = Number(/:(\d+)\/?/.exec(url.replace(/^mongodb:\/\//, ''))?.[1] ?? 27017);
  const ferret = listener(port);
  if (ferret === undefined) return undefined;
  let cmd = '';
  try {
    cmd = readFileSync(`/proc/${ferret}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    // gone
  }
  const pgPort = /--postgresql-url=\S*?:(\d+)\//.exec(cmd)?.[1];
  const postmaster = pgPort ? listener(Number(pgPort)) : undefined;
  const name = cmd.split(' ')[0]?.split('/').pop() ?? 'server';
  return {
    label: `${name} (pid ${ferret})${postmaster ? ` + postgres (pid ${postmaster} and its backends)` : ''}`,
    // Backends come and go with connections: list them again at each reading.
    cpuMs: () => cpuMsOf(ferret) + (postmaster ? withChildren(postmaster).reduce((sum, p) => sum + cpuMsOf(p), 0) : 0),
  };
}

/** CPU time (user + system) of this process so far, ms: what the database's is compared with. */
export function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
