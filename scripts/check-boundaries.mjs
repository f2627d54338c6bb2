#!/usr/bin/env node
// Proves what a bundle reaches: bundles each entry with esbuild (as scripts/build.mjs does, npm
// packages external) and fails when it pulls in a forbidden lib or npm package. The dispatcher
// (its core lib and its app) must carry neither the registry's code nor a database driver.
//   node scripts/check-boundaries.mjs [--json]
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

// Database drivers: only the store's own backend entries (@toolhub/store/mongo, @toolhub/store/embedded)
// import them, and only the apps that pick a backend reach them.
const DRIVERS = ['mongodb', '@seald-io/nedb', 'nedb', 'pg'];
const RULES = [
  // The core works against the Cache port: only the app picks Redis (@toolhub/cache/redis).
  { entry: 'libs/dispatcher-core/src/index.ts', forbiddenLibs: ['registry-core', 'store', 'search'], forbiddenPackages: [...DRIVERS, 'ioredis'] },
  // The app reaches MongoDB only through @toolhub/run-store/mongo (async-run records, MONGO_URL).
  { entry: 'apps/dispatcher/src/main.ts', forbiddenLibs: ['registry-core', 'store', 'search'], forbiddenPackages: DRIVERS.filter((d) => d !== 'mongodb') },
  // Adapters: an adapter team's process carries the SDK and its provider, never the cores or a store.
  { entry: 'libs/adapter-sdk/src/index.ts', forbiddenLibs: ['dispatcher-core', 'registry-core', 'store', 'search'], forbiddenPackages: [...DRIVERS, 'ioredis'] },
  { entry: 'apps/adapter-local/src/main.ts', forbiddenLibs: ['dispatcher-core', 'registry-core', 'store', 'search'], forbiddenPackages: [...DRIVERS, 'ioredis'] },
  { entry: 'apps/adapter-mcp/src/main.ts', forbiddenLibs: ['dispatcher-core', 'registry-core', 'store', 'search'], forbiddenPackages: [...DRIVERS, 'ioredis'] },
  { entry: 'apps/adapter-cloud/src/main.ts', forbiddenLibs: ['dispatcher-core', 'registry-core', 'store', 'search'], forbiddenPackages: [...DRIVERS, 'ioredis'] },
  // The registry's core works against the RegistryStore port; the app picks the backend.
  { entry: 'libs/registry-core/src/index.ts', forbiddenLibs: ['dispatcher-core'], forbiddenPackages: DRIVERS },
  { entry: 'libs/store/src/index.ts', forbiddenLibs: [], forbiddenPackages: DRIVERS },
  { entry: 'apps/registry/src/main.ts', forbiddenLibs: [], forbiddenPackages: ['@seald-io/nedb', 'nedb', 'pg'] },
  { entry: 'libs/cache/src/index.ts', forbiddenLibs: [], forbiddenPackages: ['ioredis'] },
  { entry: 'apps/toolhub/src/main.ts', forbiddenLibs: [], forbiddenPackages: ['mongodb', 'pg', 'ioredis'] },
];

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})].flatMap((n) => [n, `${n}/*`]);
const packageOf = (path) => (path.startsWith('@') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0]);
const report = [];
let failed = false;
for (const rule of RULES) {
  const res = await build({ entryPoints: [rule.entry], bundle: true, platform: 'node', target: 'node20', format: 'cjs', tsconfig: 'tsconfig.base.json', external, write: false, metafile: true, logLevel: 'error' });
  const inputs = Object.keys(res.metafile.inputs);
  const libs = [...new Set(inputs.map((p) => /^libs\/([^/]+)\//.exec(p)?.[1]).filter(Boolean))].sort();
  const output = Object.values(res.metafile.outputs)[0];
  const packages = [...new Set(output.imports.filter((i) => i.external).map((i) => packageOf(i.path)))].sort();
  const badLibs = libs.filter((l) => rule.forbiddenLibs.includes(l));
  const badPackages = packages.filter((p) => rule.forbiddenPackages.includes(p));
  report.push({ entry: rule.entry, bytes: output.bytes, libs, packages, badLibs, badPackages });
  if (badLibs.length || badPackages.length) failed = true;
}
if (process.argv.includes('--json')) console.log(JSON.stringify(report, null, 2));
else {
  for (const r of report) {
    const verdict = r.badLibs.length || r.badPackages.length ? `FAIL: reaches ${[...r.badLibs.map((l) => `libs/${l}`), ...r.badPackages].join(', ')}` : 'ok';
    console.log(`${r.entry}: ${verdict}\n  ${r.bytes} bytes unminified; libs: ${r.libs.join(', ')}\n  npm packages: ${r.packages.join(', ')}`);
  }
}
process.exit(failed ? 1 : 0);
