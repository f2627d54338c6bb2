#!/usr/bin/env node
// Runs a benchmark as built JavaScript, as production runs: builds every app (the benches spawn
// them as `node dist/apps/<app>/main.js`) and every top-level .ts file of bench/<name>/ (the bench
// and the helper processes it spawns), then runs `node dist/bench/<name>/<entry>.js [args]`.
//
//   npm run bench -- <name> [args...]                e.g. npm run bench -- dispatcher
//   npm run bench -- <name>/<entry> [args...]        another entry, e.g. search/retrieval.bench
//   npm run bench -- --list                          the benches and their entries
//
// BENCH_SKIP_BUILD=1 runs what dist/ already holds (A/B runs of hand-built bundles).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const benches = readdirSync('bench').filter((d) => statSync(join('bench', d)).isDirectory() && d !== 'results');
const entriesOf = (name) => readdirSync(join('bench', name)).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

const [target, ...args] = process.argv.slice(2);
if (!target || target === '--list' || target === '--help') {
  console.log('usage: npm run bench -- <name>[/<entry>] [args...]\n');
  for (const b of benches) console.log(`  ${b.padEnd(12)} ${entriesOf(b).filter((f) => /bench|soak/.test(f)).join(', ')}`);
  process.exit(target ? 0 : 2);
}
const [name, entryName] = target.split('/');
if (!benches.includes(name)) {
  console.error(`no benchmark "${name}"; benches: ${benches.join(', ')}`);
  process.exit(2);
}
const files = entriesOf(name);
const entry = entryName ? `${entryName.replace(/\.ts$/, '')}.ts` : (files.find((f) => f === `${name}.bench.ts`) ?? files.find((f) => f.endsWith('.bench.ts')) ?? files.find((f) => /soak/.test(f)));
if (!entry || !files.includes(entry)) {
  console.error(`bench/${name} has no entry ${entry ?? '*.bench.ts'}; its files: ${files.join(', ')}`);
  process.exit(2);
}
if (process.env.BENCH_SKIP_BUILD !== '1') {
  // Contracts first: bundles built from generated code older than proto/ decode new fields as
  // undefined (a checkout pulled without `npm install` did exactly that). A no-op when up to date.
  execFileSync(process.execPath, ['scripts/gen-proto.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync(process.execPath, ['scripts/build-apps.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync(process.execPath, ['scripts/build.mjs', `bench/${name}`, ...files], { stdio: ['ignore', 'ignore', 'inherit'] });
}
const js = join('dist', 'bench', name, entry.replace(/\.ts$/, '.js'));
if (!existsSync(js)) {
  console.error(`${js} is missing (was the build skipped?)`);
  process.exit(2);
}
// --expose-gc: benches that report memory settle the heap before reading it.
const run = spawnSync(process.execPath, ['--expose-gc', js, ...args], { stdio: 'inherit' });
process.exit(run.status ?? 1);
