/** Serves the built bundle: `/` is index.html, `/assets/*` the hashed-free build output; nothing outside the bundle directory. */
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
  '.ico': 'image/x-icon',
};

export function serveStatic(res: ServerResponse, dir: string | undefined, path: string, problem: string | undefined): void {
  if (!dir) {
    res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(problem ?? 'The console bundle is missing.');
    return;
  }
  const rel = path === '/' || path === '/index.html' ? 'index.html' : decodeURIComponent(path).replace(/^\/+/, '');
  const root = resolve(dir);
  const file = resolve(join(root, rel));
  if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Not found. The console lives at / (its pages are addressed as /#/overview, /#/catalog, …).');
    return;
  }
  res.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    // index.html names the assets; it must be fetched fresh after an upgrade, the assets may be cached briefly.
    'cache-control': rel === 'index.html' ? 'no-cache' : 'max-age=300',
  });
  createReadStream(file).pipe(res);
}
