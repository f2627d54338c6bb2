/** The gRPC connection guard's metrics (toolhub_grpc_*), for every app serving a gRPC API. */
import type { EdgeCounters } from '@toolhub/grpc-edge';
import { Counter, Gauge, type Registry } from 'prom-client';

/** Registers the guard's refusals, connections and bytes in flight of `edges` (summed) on `registry`. */
export function registerEdgeMetrics(registry: Registry, edges: readonly EdgeCounters[]): void {
  const registers = [registry];
  new Counter({
    name: 'toolhub_grpc_refused_total',
    help: 'gRPC API refusals before a call is decoded, by reason: connections_total / connections_per_peer (connection closed at once), in_flight_bytes (request bytes still arriving over the budget: call answered RESOURCE_EXHAUSTED), stream_idle (a request stopped arriving: same), connections_over_budget (a connection closed after 8 requests over the budget), message_size (a message declared over the limit: INVALID_ARGUMENT before its body is read), request_content (arguments past their limits, counted as they arrive: INVALID_ARGUMENT before the rest is read), unauthenticated (a call with no credentials while auth is on: UNAUTHENTICATED from its headers)',
    labelNames: ['reason'] as const,
    registers,
    collect() {
      this.reset();
      for (const edge of edges) for (const [reason, n] of Object.entries(edge.refused)) this.inc({ reason }, n);
    },
  });
  new Gauge({
    name: 'toolhub_grpc_connections',
    help: 'Open connections to the gRPC API',
    registers,
    collect() {
      this.set(edges.reduce((n, e) => n + e.connections, 0));
    },
  });
  new Gauge({
    name: 'toolhub_grpc_in_flight_bytes',
    help: 'Bytes of gRPC requests still arriving (not yet handed to a handler, so not yet authenticated)',
    registers,
    collect() {
      this.set(edges.reduce((n, e) => n + e.inFlightBytes, 0));
    },
  });
}
