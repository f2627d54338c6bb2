/**
 * A local npm registry for tests: Verdaccio from npm, installed by the test itself into
 * tmp/verdaccio from test/deploy/verdaccio/package-lock.json (npm ci; fails loudly when it cannot
 * be installed), run with its storage in a scratch folder and no uplinks, so nothing it serves
 * comes from, or goes to, anywhere else.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { freePort, spawnProcess, type SpawnedProcess } from '@toolhub/test-harness';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..', '..');
const MANIFEST_DIR = join(ROOT, 'test', 'deploy', 'verdaccio');
const INSTALL_DIR = join(ROOT, 'tmp', 'verdaccio');

/** Installs Verdaccio (once; again when the committed lock changes). @returns its executable */
export async function ensureVerdaccio(): Promise<string> {
  const bin = join(INSTALL_DIR, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  const lock = readFileSync(join(MANIFEST_DIR, 'package-lock.json'), 'utf8');
  const installedLock = join(INSTALL_DIR, 'package-lock.json');
  if (existsSync(bin) && existsSync(installedLock) && readFileSync(installedLock, 'utf8') === lock) return bin;
  mkdirSync(INSTALL_DIR, { recursive: true });
  for (const f of ['package.json', 'package-lock.json']) copyFileSync(join(MANIFEST_DIR, f), join(INSTALL_DIR, f));
  try {
    await run('npm', ['ci', '--no-audit', '--no-fund', '--prefix', INSTALL_DIR], { cwd: INSTALL_DIR, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    throw new Error(`Verdaccio (test/deploy/verdaccio/package.json) could not be installed into tmp/verdaccio with npm ci; this test needs it: ${(err as Error).message}`, { cause: err });
  }
  if (!existsSync(bin)) throw new Error(`npm ci in tmp/verdaccio finished but ${bin} is missing`);
  return bin;
}

/** A running Verdaccio. */
export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** A publisher's token (user `toolhub`, created at start). */
  token: string;
  /** An npmrc holding the registry and the token, for `npm publish --userconfig`. */
  npmrc: string;
  proc: SpawnedProcess;
  stop(): Promise<void>;
}

/** Starts Verdaccio with storage under `dir` and no uplinks, and creates a publisher. */
export async function startVerdaccio(dir: string): Promise<LocalRegistry> {
  const bin = await ensureVerdaccio();
  mkdirSync(join(dir, 'storage'), { recursive: true });
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(join(dir, 'storage'))}`,
      'auth:',
      '  htpasswd:',
      `    file: ${JSON.stringify(join(dir, 'htpasswd'))}`,
      '    max_users: 10',
      // No uplinks: a package that was not published here is a 404, never fetched from elsewhere.
      'uplinks: {}',
      'packages:',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      // typescript's tarball is ~4 MB (base64 in the publish body).
      'max_body_size: 200mb',
      'web:',
      '  enable: false',
      'log: { type: stdout, format: json, level: warn }',
      '',
    ].join('\n'),
  );
  let port = 0;
  let proc: SpawnedProcess | undefined;
  // A free port can be taken between freePort() and the bind: try another one then.
  for (let attempt = 0; !proc; attempt++) {
    port = await freePort();
    try {
      proc = await spawnProcess(process.execPath, [bin, '--config', config, '--listen', `127.0.0.1:${port}`], { cwd: dir, readyPattern: /http address/, timeoutMs: 60_000 });
    } catch (err) {
      if (attempt >= 2 || !/EADDRINUSE|address already in use/i.test(String(err))) throw err;
    }
  }
  const url = `http://127.0.0.1:${port}/`;
  const res = await fetch(`${url}-/user/org.couchdb.user:toolhub`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'toolhub', password: 'toolhub-publisher' }),
  });
  const body = (await res.json()) as { token?: string; error?: string };
  if (!res.ok || !body.token) throw new Error(`Verdaccio refused to create the publisher: ${res.status} ${JSON.stringify(body)}`);
  const npmrc = join(dir, 'publisher.npmrc');
  writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${body.token}\n`);
  return { url, token: body.token, npmrc, proc, stop: async () => void (await proc.kill('SIGTERM')) };
}
