/**
 * The HTTP side of operations: Prometheus `/metrics`, plus `/livez` and `/readyz` for probes and
 * container HEALTHCHECKs that speak HTTP rather than gRPC.
 */
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

import type { ReadinessState } from './readiness';

export interface RunningMetricsServer {
  readonly port: number;
  /** `http://host:port/metrics` */
  readonly url: string;
  close(): Promise<void>;
}

/** Serves `registry` on `/metrics` and `readiness()` on `/readyz`. */
export async function startMetricsServer(host: string, port: number, registry: Registry, readiness: () => ReadinessState): Promise<RunningMetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/metrics') {
      registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
        (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics collection failed: ${err instanceof Error ? err.message : String(err)}\n`),
      );
      return;
    }
    if (path === '/livez') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      return;
    }
    if (path === '/readyz') {
      const state = readiness();
      res.writeHead(state.ready ? 200 : 503, { 'content-type': 'application/json' }).end(`${JSON.stringify(state)}\n`);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics, /livez or /readyz\n');
  });
  server.keepAliveTimeout = 65_000; // longer than Prometheus' scrape interval, so connections are reused
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    port: bound,
    url: `http://${host}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
