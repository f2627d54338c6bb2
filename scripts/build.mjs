#!/usr/bin/env node
// Builds one project with esbuild: bundles its own code and the @toolhub/* libs it imports
// (resolved through tsconfig paths), keeps npm dependencies external.
// Usage: node scripts/build.mjs <projectRoot> <entry...>
import { build } from 'esbuild';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const [projectRoot, ...entries] = process.argv.slice(2);
if (!projectRoot || entries.length === 0) {
  console.error('usage: node scripts/build.mjs <projectRoot> <entry...>');
  process.exit(2);
}
// Worker-thread entries (`src/*-worker.ts`, e.g. the local tools' pool) ship beside the main bundle.
const srcDir = join(projectRoot, 'src');
const workers = existsSync(srcDir) ? readdirSync(srcDir).filter((f) => f.endsWith('-worker.ts')).map((f) => `src/${f}`) : [];
for (const w of workers) if (!entries.includes(w)) entries.push(w);
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})];
await build({
  entryPoints: entries.map((e) => join(projectRoot, e)),
  outdir: join('dist', projectRoot),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  tsconfig: 'tsconfig.base.json',
  external: external.flatMap((name) => [name, `${name}/*`]),
  logLevel: 'warning',
});
// Apps serving gRPC reflection read the contract's descriptor set from beside their bundle.
mkdirSync(join('dist', projectRoot), { recursive: true });
copyFileSync('libs/contracts/src/gen/toolhub-v1.binpb', join('dist', projectRoot, 'toolhub-v1.binpb'));
// Apps that serve the operator console find its browser bundle beside main.js (libs/console ui-bundle.ts).
if (['apps/registry', 'apps/toolhub'].includes(projectRoot) && existsSync('libs/console/dist/ui/index.html')) cpSync('libs/console/dist/ui', join('dist', projectRoot, 'console-ui'), { recursive: true });
console.log(`built ${projectRoot} -> dist/${projectRoot} (${entries.map((e) => basename(e)).join(', ')})`);
