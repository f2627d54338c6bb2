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
    help: 'MCP door requests by JSON-RPC method (or HTTP verb) and outcome (ok, is_error, unauthenticated, unknown_session, parse_error, too_large, ...)',
    labelNames: ['method', 'outcome'] as const,
    registers,
  });
  door.observe((method, outcome) => requests.inc({ method: KNOWN_METHODS.has(method) ? method : '_other', outcome }));
  new Gauge({
    name: 'toolhub_mcp_sessions_open',
    help: 'MCP sessions open now',
    registers,
    collect() {
      this.set(door.sessionCount);
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
