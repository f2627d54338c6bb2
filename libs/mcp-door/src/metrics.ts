/**
 * The door's Prometheus metrics: requests by method and outcome (counted as they are answered),
 * sessions open and looked-up tools per session (read at scrape time, costing calls nothing).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

import type { McpDoor } from './http-door';

/** Distinct method labels kept; callers choose method names, so others count as `_other`. */
const KNOWN_METHODS = new Set(['initialize', 'notifications/initialized', 'notifications/cancelled', 'ping', 'tools/list', 'tools/call', 'GET', 'DELETE', 'POST', 'batch', 'response', 'http', 'oauth-protected-resource', 'tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel']);

/** Registers the door's metrics on `registry` and starts counting its requests. */
export function registerMcpMetrics(registry: Registry, door: McpDoor): void {
  const registers = [registry];
  const requests = new Counter({
    name: 'toolhub_mcp_requests_total',
    help: 'MCP door requests by JSON-RPC method (or HTTP verb), outcome (ok, is_error, unauthenticated, unknown_session, parse_error, too_large, ...) and transport (streamable-http, sse = HTTP+SSE 2024-11-05, none)',
    labelNames: ['method', 'outcome', 'transport'] as const,
    registers,
  });
  door.observe((method, outcome, transport) => requests.inc({ method: KNOWN_METHODS.has(method) ? method : '_other', outcome, transport }));
  new Gauge({
    name: 'toolhub_mcp_sessions_open',
    help: 'MCP sessions open now, by transport (streamable-http, sse)',
    labelNames: ['transport'] as const,
    registers,
    collect() {
      for (const [transport, n] of Object.entries(door.sessionsByTransport())) this.set({ transport }, n);
    },
  });
  new Counter({
    name: 'toolhub_mcp_sessions_evicted_total',
    help: 'MCP sessions closed for idleness or to stay under TOOLHUB_MCP_MAX_SESSIONS',
    registers,
    collect() {
      this.reset();
      this.inc(door.evicted);
    },
  });
  const loaded = new Histogram({
    name: 'toolhub_mcp_loaded_tools_per_session',
    help: 'Looked-up tools each open MCP session lists (sampled at scrape)',
    buckets: [0, 1, 2, 5, 10, 20, 50, 100],
    registers,
  });
  // A histogram of the current sessions: rebuilt on every scrape.
  new Gauge({
    name: 'toolhub_mcp_loaded_tools',
    help: 'Looked-up tools listed across all open MCP sessions',
    registers,
    collect() {
      loaded.reset();
      let sum = 0;
      for (const n of door.loadedPerSession()) {
        loaded.observe(n);
        sum += n;
      }
      this.set(sum);
    },
  });
}
