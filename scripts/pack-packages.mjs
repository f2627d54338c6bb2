#!/usr/bin/env node
// Builds the packages an adapter team installs from npm (@toolhub/contracts, @toolhub/bus,
// @toolhub/adapter-sdk, @toolhub/adapter-conformance, and the scaffold @toolhub/create-adapter that
// `npm create @toolhub/adapter` runs) to JavaScript with .d.ts, writes each one's
// publish manifest (exports map, declared dependencies) and runs `npm pack`.
// The monorepo itself keeps using the TypeScript sources (tsconfig paths, jest moduleNameMapper);
// only the staged copies under tmp/pack point at dist/.
//   node scripts/pack-packages.mjs            -> tmp/pack/tarballs/*.tgz
// Fails when a built file requires a package its manifest does not declare.
import { execFileSync } from 'node:child_process';
import { builtinModules, createRequire } from 'node:module';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'tmp', 'pack');
const started = Date.now();

/** What gets published, in dependency order. `bin` maps command names to built files. */
export const PACKAGES = [
  { dir: 'contracts', assets: [['src/gen/toolhub-v1.binpb', 'dist/gen/toolhub-v1.binpb']] },
  { dir: 'bus' },
  { dir: 'adapter-sdk' },
  // The dev package.json has no bin: it would link a TypeScript file into node_modules/.bin.
  { dir: 'adapter-conformance', bin: { 'toolhub-adapter-conformance': './dist/bin.js' } },
  // One bin named after the package, so `npx @toolhub/create-adapter` and `npm create @toolhub/adapter` run it.
  // adapter-files.js holds the scaffold's source as text: its imports are the new project's, not ours.
  { dir: 'create-adapter', bin: { 'create-adapter': './dist/bin.js' }, templates: ['dist/adapter-files.js'] },
];

rmSync(out, { recursive: true, force: true });
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'scripts', 'pack', 'tsconfig.json')], { cwd: root, stdio: 'inherit' });
const built = Date.now();

// The scaffold must name exactly the versions packed here, or `npm create` writes a project that
// cannot install from the registry these tarballs go to.
const { SCAFFOLD_VERSIONS } = createRequire(import.meta.url)(join(out, 'build', 'create-adapter', 'src', 'versions.js'));
for (const [name, version] of Object.entries(SCAFFOLD_VERSIONS)) {
  const actual = JSON.parse(readFileSync(join(root, 'libs', name.replace('@toolhub/', ''), 'package.json'), 'utf8')).version;
  if (actual !== version) {
    console.error(`pack: libs/create-adapter/src/versions.ts names ${name}@${version}, but libs/${name.replace('@toolhub/', '')}/package.json is ${actual}; update versions.ts`);
    process.exit(1);
  }
}

const walk = (dir) => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]));
const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
/** The package name of a bare specifier: `@scope/name/sub` -> `@scope/name`. */
const packageOf = (spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');

mkdirSync(join(out, 'tarballs'), { recursive: true });
const results = [];
for (const pkg of PACKAGES) {
  const src = join(root, 'libs', pkg.dir);
  const manifest = JSON.parse(readFileSync(join(src, 'package.json'), 'utf8'));
  const stage = join(out, 'stage', pkg.dir);
  cpSync(join(out, 'build', pkg.dir, 'src'), join(stage, 'dist'), { recursive: true });
  for (const [from, to] of pkg.assets ?? []) cpSync(join(src, from), join(stage, to));
  cpSync(join(src, 'README.md'), join(stage, 'README.md'));

  // Every package a built file requires must be declared, or the tarball fails at run time.
  const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
  const missing = new Set();
  const templates = new Set((pkg.templates ?? []).map((f) => join(stage, f)));
  for (const file of walk(join(stage, 'dist')).filter((f) => (f.endsWith('.js') || f.endsWith('.d.ts')) && !templates.has(f))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:require\(|from |import\()["']([^"'.][^"']*)["']/g)) {
      const name = packageOf(m[1]);
      if (!builtins.has(m[1]) && !builtins.has(name) && !declared.has(name)) missing.add(`${name} (${relative(stage, file)})`);
    }
  }
  if (missing.size > 0) {
    console.error(`pack: ${manifest.name} uses packages its package.json does not declare: ${[...missing].join(', ')}`);
    process.exit(1);
  }

  const { private: _private, main: _main, types: _types, ...rest } = manifest;
  const publish = {
    ...rest,
    main: './dist/index.js',
    types: './dist/index.d.ts',
    exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' },
    ...(pkg.bin ? { bin: pkg.bin } : {}),
    files: ['dist', 'README.md'],
    repository: { type: 'git', url: 'https://example.invalid/toolhub.git', directory: `libs/${pkg.dir}` },
    publishConfig: { access: 'public' },
  };
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(publish, null, 2)}\n`);
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', join(out, 'tarballs')], { cwd: stage, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }))[0];
  results.push({ name: manifest.name, version: manifest.version, file: packed.filename, files: packed.entryCount, bytes: packed.size });
}

for (const r of results) console.log(`pack: ${r.name}@${r.version} -> tmp/pack/tarballs/${r.file} (${r.files} files, ${(r.bytes / 1024).toFixed(1)} KiB)`);
console.log(`pack: built in ${((built - started) / 1000).toFixed(1)} s, packed in ${((Date.now() - built) / 1000).toFixed(1)} s`);
if (!existsSync(join(out, 'tarballs'))) process.exit(1);
