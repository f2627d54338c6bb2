/**
 * A small real HTTP API for integration tests, on a free loopback port: it serves its own OpenAPI
 * document and answers with auth echoes, 429/503 with Retry-After, redirects, oversized and slow
 * bodies. Every request it saw is recorded, so tests can check what reached the server.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the server saw of one request. */
export interface SeenRequest {
  readonly method: string;
  /** Raw request target (path and query, as sent). */
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A running test API. */
export interface ApiServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly seen: SeenRequest[];
  /** Requests whose path starts with `prefix`. */
  requests(prefix: string): SeenRequest[];
  close(): Promise<void>;
}

/** The OpenAPI document the server describes itself with (servers → its own /v1). */
export function apiDocument(origin: string): string {
  const get = (id: string, extra = '') => `    get:\n      operationId: ${id}\n      tags: [probe]\n${extra}      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: { type: object }\n`;
  return `openapi: 3.1.0
info: { title: Probe API, version: 1.0.0 }
servers:
  - url: ${origin}/v1
paths:
  /whoami:
${get('whoAmI')}  /limited:
${get('getLimited', "      parameters:\n        - { name: key, in: query, required: true, schema: { type: string } }\n        - { name: mode, in: query, schema: { type: string, enum: [seconds, date] } }\n")}  /busy:
${get('getBusy')}  /throttled:
${get('getThrottled')}  /redirect:
${get('redirectTo', '      parameters:\n        - { name: to, in: query, required: true, schema: { type: string } }\n')}  /big:
${get('getBig')}  /slow:
${get('getSlow')}  /fail:
${get('getFail')}  /exports:
${get('startExport', '      parameters:\n        - { name: checks, in: query, required: true, schema: { type: integer } }\n        - { name: wait, in: query, schema: { type: string } }\n')}  /items/{itemId}:
${get('getItem', '      parameters:\n        - { name: itemId, in: path, required: true, schema: { type: string } }\n')}  /items:
    post:
      operationId: createItem
      tags: [items]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [itemName]
              properties:
                itemName: { type: string }
                unitPrice: { type: number }
      responses:
        '201':
          description: created
          content:
            application/json:
              schema: { type: object }
`;
}

/** Starts the API on a free port of 127.0.0.1. */
export async function startApiServer(): Promise<ApiServer> {
  const seen: SeenRequest[] = [];
  const counters = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  let origin = '';

  const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(value));
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: string): void => {
    const url = new URL(req.url ?? '/', origin);
    const path = url.pathname;
    if (path === '/openapi.yaml') {
      res.writeHead(200, { 'content-type': 'application/yaml' });
      res.end(apiDocument(origin));
      return;
    }
    if (path === '/v1/whoami') {
      // Echoes what it received, credentials included: the adapter must not pass them on to the agent.
      json(res, 200, { authorization: req.headers.authorization ?? null, apiKey: req.headers['x-api-key'] ?? null, query: Object.fromEntries(url.searchParams) });
      return;
    }
    if (path === '/v1/limited') {
      const key = url.searchParams.get('key') ?? '';
      const n = (counters.get(key) ?? 0) + 1;
      counters.set(key, n);
      if (n === 1) {
        const retryAfter = url.searchParams.get('mode') === 'date' ? new Date(Date.now() + 2000).toUTCString() : '1';
        json(res, 429, { error: 'slow down' }, { 'retry-after': retryAfter });
        return;
      }
      json(res, 200, { ok: true, attempt: n });
      return;
    }
    if (path === '/v1/busy') {
      json(res, 503, { error: 'maintenance' }, { 'retry-after': '0' });
      return;
    }
    if (path === '/v1/throttled') {
      json(res, 429, { error: 'quota exceeded' }, { 'retry-after': '120' });
      return;
    }
    if (path === '/v1/redirect') {
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
      res.end();
      return;
    }
    if (path === '/v1/big') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const row = `${JSON.stringify({ id: 1, text: 'x'.repeat(1000) })},`;
      res.write('[');
      for (let i = 0; i < 3000; i++) res.write(row); // ~3 MB
      res.end('{}]');
      return;
    }
    if (path === '/v1/slow') {
      const timer = setTimeout(() => {
        timers.delete(timer);
        json(res, 200, { late: true });
      }, 5000);
      timers.add(timer);
      req.socket.once('close', () => {
        clearTimeout(timer);
        timers.delete(timer);
      });
      return;
    }
    // The long-running pattern: 202 + Location to a status resource that answers 202 until its
    // `checks`-th check, then 303 See Other to the result. `wait` is the Retry-After it sends.
    if (path === '/v1/exports') {
      const id = `e${seen.length}`;
      counters.set(id, Number(url.searchParams.get('checks') ?? '1'));
      json(res, 202, { status: 'queued' }, { location: `/v1/exports/${id}/status`, 'retry-after': url.searchParams.get('wait') ?? '0' });
      return;
    }
    const exportStatus = /^\/v1\/exports\/(e\d+)\/status$/.exec(path);
    if (exportStatus) {
      const id = exportStatus[1]!;
      const left = (counters.get(id) ?? 0) - 1;
      counters.set(id, left);
      if (left > 0) json(res, 202, { status: 'running' }, { 'retry-after': url.searchParams.get('wait') ?? '0' });
      else {
        res.writeHead(303, { location: `/v1/exports/${id}/result` });
        res.end();
      }
      return;
    }
    if (/^\/v1\/exports\/e\d+\/result$/.test(path)) {
      json(res, 200, { rows: 3, authorization: req.headers.authorization ?? null });
      return;
    }
    if (path === '/v1/fail') {
      json(res, 500, { error: 'database on fire', youSent: req.headers.authorization ?? req.headers['x-api-key'] ?? url.searchParams.get('api_key'), detail: 'y'.repeat(2000) });
      return;
    }
    if (path.startsWith('/v1/items/')) {
      json(res, 200, { rawPath: req.url });
      return;
    }
    if (path === '/v1/items' && req.method === 'POST') {
      json(res, 201, { created: JSON.parse(body || '{}') as unknown, contentType: req.headers['content-type'] });
      return;
    }
    json(res, 404, { error: `no route ${req.method} ${path}` });
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handle(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  return {
    port,
    origin,
    seen,
    requests: (prefix) => seen.filter((r) => r.url.startsWith(prefix)),
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
