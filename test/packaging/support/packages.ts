/**
 * The published packages as a team outside the monorepo gets them: `scripts/pack-packages.mjs`
 * builds and packs them, and `installPacked` installs the tarballs into a folder outside the
 * workspace with plain `npm install` (no workspace links; third-party packages from the npm cache
 * or registry).
 */
import { execFile } from 'node:child_process';
import { cpSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const ROOT = join(__dirname, '../../..');
export const TARBALLS = join(ROOT, 'tmp', 'pack', 'tarballs');
export const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** Timings of the steps, for the report. */
export const timings: Record<string, number> = {};

async function timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await fn();
  } finally {
    timings[what] = Date.now() - started;
  }
}

/** Builds and packs every publishable package (once per test file). Returns tarball paths by package name. */
export async function packPackages(): Promise<Record<string, string>> {
  await timed('pack', () => run(process.execPath, [join(ROOT, 'scripts', 'pack-packages.mjs')], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }));
  const byName: Record<string, string> = {};
  for (const file of readdirSync(TARBALLS)) {
    const m = /^toolhub-(.+)-\d+\.\d+\.\d+\.tgz$/.exec(file);
    if (m) byName[`@toolhub/${m[1]}`] = join(TARBALLS, file);
  }
  return byName;
}

/**
 * Writes a package.json depending on the tarballs (as `file:` specs, which npm copies, never links)
 * plus `extra` registry packages, and runs `npm install` in `dir`.
 */
export async function installPacked(dir: string, tarballs: Record<string, string>, extra: Record<string, string> = {}): Promise<void> {
  const dependencies = { ...Object.fromEntries(Object.entries(tarballs).map(([name, file]) => [name, `file:${file}`])), ...extra };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'team-adapter', version: '1.0.0', private: true, dependencies }, null, 2));
  await timed('npm install', () => run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'], { cwd: dir, maxBuffer: 16 * 1024 * 1024 }));
}

/** Copies a fixture project into `dir` and compiles it with plain tsc (no paths, no workspace). */
export async function compileFixture(fixture: string, dir: string): Promise<void> {
  cpSync(fixture, dir, { recursive: true });
  await timed('tsc', () => run(process.execPath, [TSC, '-p', dir], { cwd: dir, maxBuffer: 16 * 1024 * 1024 }));
}
