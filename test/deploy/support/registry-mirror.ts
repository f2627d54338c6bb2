/**
 * What an adapter team installs besides ToolHub's packages (nats, protobuf, typescript, …), put
 * into the local registry so that the team's `npm install` needs nothing else: the packages and
 * versions of this repository's package-lock.json that the published packages and the scaffold
 * need (the whole dependency closure), packed from npm's cache and published as they are.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..', '..');

interface LockEntry {
  version?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/**
 * `name@version` of every package `seeds` need, as installed in this repository (the lock's
 * node_modules tree, resolved the way Node resolves: nearest node_modules first).
 * @throws Error for a seed or dependency the lock does not have
 */
export function lockClosure(seeds: readonly string[]): string[] {
  const lock = (JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }).packages;
  const resolveFrom = (from: string, name: string): string | undefined => {
    for (let base = from; ; ) {
      const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
      if (lock[candidate]) return candidate;
      if (!base) return undefined;
      const i = base.lastIndexOf('/node_modules/');
      base = i < 0 ? '' : base.slice(0, i);
    }
  };
  const specs = new Set<string>();
  const seen = new Set<string>();
  const queue: Array<[string, string, boolean]> = seeds.map((s) => ['', s, false]);
  while (queue.length > 0) {
    const [from, name, optional] = queue.shift()!;
    const path = resolveFrom(from, name);
    if (!path) {
      if (optional) continue;
      throw new Error(`package-lock.json has no ${name} (needed from ${from || 'the root'})`);
    }
    if (seen.has(path)) continue;
    seen.add(path);
    const entry = lock[path]!;
    if (entry.link || !entry.version) throw new Error(`${name} is a workspace link in package-lock.json, not a registry package`);
    specs.add(`${name}@${entry.version}`);
    // npm installs non-optional peers too; optional dependencies only where this platform had them.
    const peers = Object.keys(entry.peerDependencies ?? {}).filter((p) => !entry.peerDependenciesMeta?.[p]?.optional);
    for (const d of [...Object.keys(entry.dependencies ?? {}), ...peers]) queue.push([path, d, false]);
    for (const d of Object.keys(entry.optionalDependencies ?? {})) queue.push([path, d, true]);
  }
  return [...specs].sort();
}

/** Packs `specs` (`name@version`) into `dest` from npm's cache (the registry only for a miss). @returns tarball paths */
export async function packFromCache(specs: readonly string[], dest: string): Promise<string[]> {
  const { stdout } = await run('npm', ['pack', '--prefer-offline', '--json', '--pack-destination', dest, ...specs], { cwd: dest, maxBuffer: 64 * 1024 * 1024 });
  return (JSON.parse(stdout) as Array<{ filename: string }>).map((p) => join(dest, basename(p.filename)));
}

/** The package.json at the top of a package tarball (its folder is `package/` for most, not all). */
export function tarballManifest(tgz: string): Record<string, unknown> & { name: string; version: string } {
  const tar = gunzipSync(readFileSync(tgz));
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const field = (from: number, len: number) => header.subarray(from, from + len).toString('utf8').replace(/\0.*$/s, '');
    const name = `${field(345, 155) ? `${field(345, 155)}/` : ''}${field(0, 100)}`;
    const size = parseInt(field(124, 12).trim() || '0', 8);
    if (/^[^/]+\/package\.json$/.test(name) && (field(156, 1) === '0' || field(156, 1) === '')) {
      return JSON.parse(tar.subarray(at + 512, at + 512 + size).toString('utf8')) as ReturnType<typeof tarballManifest>;
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${tgz}: no package.json at the top of the tarball`);
}

/**
 * Publishes a third-party tarball as it is, with the registry's publish request (the body
 * `npm publish` sends). Not `npm publish`: some manifests carry a publishConfig.registry that would
 * send them elsewhere.
 */
export async function publishAsIs(registryUrl: string, token: string, tgz: string): Promise<void> {
  const data = readFileSync(tgz);
  const manifest = tarballManifest(tgz);
  const { name, version } = manifest;
  const file = `${name.replace(/^@[^/]+\//, '')}-${version}.tgz`;
  const doc = {
    _id: name,
    name,
    'dist-tags': { latest: version },
    versions: {
      [version]: {
        ...manifest,
        _id: `${name}@${version}`,
        dist: {
          shasum: createHash('sha1').update(data).digest('hex'),
          integrity: `sha512-${createHash('sha512').update(data).digest('base64')}`,
          tarball: `${registryUrl}${name}/-/${file}`,
        },
      },
    },
    _attachments: { [file]: { content_type: 'application/octet-stream', data: data.toString('base64'), length: data.length } },
  };
  const res = await fetch(`${registryUrl}${name.replace('/', '%2f')}`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(doc) });
  if (!res.ok) throw new Error(`publishing ${name}@${version} to ${registryUrl}: ${res.status} ${await res.text()}`);
}
