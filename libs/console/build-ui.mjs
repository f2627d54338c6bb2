#!/usr/bin/env node
// Builds the console's browser bundle into libs/console/dist/ui (index.html, assets/main.js,
// assets/main.css) with esbuild. Runs from `npm install` (postinstall) and, when the bundle is
// missing, once at start (src/ui-bundle.ts). Prints one line: sizes raw and gzipped, and time.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
// esbuild is a dev dependency: an install without it (--omit=dev) must not fail here; the console
// then answers its pages with a note saying how to build them (its JSON API still works).
let build;
try {
  ({ build } = await import('esbuild'));
} catch {
  console.warn('console bundle: esbuild is not installed (npm install --omit=dev?); not built. Run `npm install` with dev dependencies, then `npm run build:console`.');
  process.exit(0);
}
const out = join(here, 'dist', 'ui');
const started = performance.now();
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });
await build({
  entryPoints: { main: join(here, 'ui', 'src', 'main.tsx') },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['chrome110', 'firefox115', 'safari16'],
  jsx: 'automatic',
  outdir: join(out, 'assets'),
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'none',
  logLevel: 'warning',
});
writeFileSync(join(out, 'index.html'), readFileSync(join(here, 'ui', 'index.html')));
const size = (f) => {
  const b = readFileSync(join(out, 'assets', f));
  return { raw: b.length, gzip: gzipSync(b, { level: 9 }).length };
};
const js = size('main.js');
const css = size('main.css');
const report = { js, css, ms: Math.round(performance.now() - started) };
writeFileSync(join(out, 'build-report.json'), JSON.stringify(report, null, 2));
console.log(`console bundle: main.js ${(js.raw / 1024).toFixed(1)} KB (${(js.gzip / 1024).toFixed(1)} KB gzipped), main.css ${(css.raw / 1024).toFixed(1)} KB (${(css.gzip / 1024).toFixed(1)} KB gzipped), built in ${report.ms} ms`);
