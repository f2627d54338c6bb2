/**
 * The npm peers the gateway bench compares ToolHub with. They are not dependencies of the repo:
 * the bench installs the pinned versions once into a cache folder (outside the work tree) with the
 * ordinary npm client, and fails loudly when that does not work.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Exact versions, so every run measures the same peers. */
export const PEER_VERSIONS = { 'mcp-proxy': '6.7.19', 'mcp-hub': '4.2.1' } as const;
export type Peer = keyof typeof PEER_VERSIONS;

/** `BENCH_PEERS_DIR`, else `$XDG_CACHE_HOME/toolhub/bench-peers` (default `~/.cache/toolhub/bench-peers`). */
export function peersDir(): string {
  return process.env['BENCH_PEERS_DIR'] ?? join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'toolhub', 'bench-peers');
}

function installedVersion(dir: string, peer: Peer): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(dir, 'node_modules', peer, 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** Installs the pinned peers where missing or of another version; returns the path of each one's CLI entry. */
export function ensurePeers(log: (line: string) => void): Record<Peer, string> {
  const dir = peersDir();
  const peers = Object.keys(PEER_VERSIONS) as Peer[];
  const stale = peers.filter((p) => installedVersion(dir, p) !== PEER_VERSIONS[p]);
  if (stale.length > 0) {
    mkdirSync(dir, { recursive: true });
    const specs = peers.map((p) => `${p}@${PEER_VERSIONS[p]}`);
    log(`installing ${specs.join(' ')} into ${dir} (once)`);
    try {
      execFileSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--save-exact', ...specs], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 300_000 });
    } catch (err) {
      throw new Error(`could not install the peers (npm install --prefix ${dir} ${specs.join(' ')}): ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    for (const p of peers) {
      const v = installedVersion(dir, p);
      if (v !== PEER_VERSIONS[p]) throw new Error(`after npm install, ${p} in ${dir} is ${v ?? 'missing'}, not ${PEER_VERSIONS[p]}`);
    }
  }
  const entry = (p: Peer, rel: string): string => {
    const file = join(dir, 'node_modules', p, rel);
    if (!existsSync(file)) throw new Error(`${p} ${PEER_VERSIONS[p]} in ${dir} has no ${rel}; delete ${dir} and run again`);
    return file;
  };
  return { 'mcp-proxy': entry('mcp-proxy', 'dist/bin/mcp-proxy.mjs'), 'mcp-hub': entry('mcp-hub', 'dist/cli.js') };
}
