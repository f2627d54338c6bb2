/**
 * A private PostgreSQL server for FerretDB's `postgresql` handler: initdb into a scratch directory,
 * then `postgres` on a free loopback port with durability off (test data is thrown away). Uses the
 * Debian packages' binaries (/usr/lib/postgresql/<version>/bin) or TOOLHUB_PG_BIN. PostgreSQL
 * refuses to run as root, so under root it runs as the `postgres` user the package creates.
 */
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

import { freePort } from './ports';
import { scratchDir, spawnProcess, type SpawnedProcess } from './process';

const run = promisify(execFile);

/** The directory holding `initdb` and `postgres`, or undefined when PostgreSQL is not installed. */
export function postgresBinDir(): string | undefined {
  const given = process.env['TOOLHUB_PG_BIN'];
  if (given) return existsSync(join(given, 'initdb')) ? given : undefined;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && join(root, versions[0], 'bin');
}

/** A running private PostgreSQL. */
export interface PostgresServer {
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication on loopback). */
  readonly url: string;
  readonly proc: SpawnedProcess;
}

async function postgresUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    throw new Error('PostgreSQL cannot run as root and there is no "postgres" user: apt-get install -y postgresql creates it');
  }
}

/**
 * Starts PostgreSQL and waits until it accepts connections.
 * @throws Error when PostgreSQL is not installed (saying how to install it) or does not start.
 */
export async function startPostgresServer(options: { timeoutMs?: number } = {}): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed: apt-get install -y postgresql (or set TOOLHUB_PG_BIN to its bin directory)');
  const timeoutMs = options.timeoutMs ?? 60_000;
  const dir = scratchDir('postgres');
  const data = join(dir, 'data');
  const user = await postgresUser();
  if (user) {
    // The scratch root is private to this process (0700): let the postgres user through.
    chmodSync(dirname(dir), 0o711);
    chownSync(dir, user.uid, user.gid);
  }
  const as = user ? { uid: user.uid, gid: user.gid } : {};
  try {
    await run(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--no-instructions'], { ...as, timeout: timeoutMs });
  } catch (err) {
    throw new Error(`initdb failed: ${(err as { stderr?: string }).stderr ?? (err as Error).message}`, { cause: err });
  }
  const port = await freePort();
  const proc = await spawnProcess(
    join(bin, 'postgres'),
    // Throw-away data: no fsync, no full-page writes; the socket directory is the scratch dir.
    ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    { ...as, readyPattern: /ready to accept connections/, timeoutMs, installHint: 'apt-get install -y postgresql' },
  );
  return { port, url: `postgres://postgres@127.0.0.1:${port}/postgres`, proc };
}
