/**
 * The operations endpoints' environment variables, as fields every app spreads into its own
 * `defineConfig` (so docker-compose, the Helm chart and the app READMEs are checked against them).
 */
import { zBoolean } from '@toolhub/config';
import { z } from 'zod';

const port = z.coerce.number().int().min(-1).max(65535);

/**
 * Config fields `opsHost`, `healthPort` and `metricsPort` (env TOOLHUB_OPS_HOST,
 * TOOLHUB_HEALTH_PORT, TOOLHUB_METRICS_PORT). Port 0 (the default) picks a free port and logs it,
 * so any number of apps run side by side on one machine; containers and the Helm chart set fixed
 * ports (9090 health, 9091 metrics) for their probes. -1 turns an endpoint off.
 */
export function opsConfigFields() {
  return {
    opsHost: {
      env: 'TOOLHUB_OPS_HOST',
      schema: z.string().min(1).default('127.0.0.1'),
      description: 'Interface the health (gRPC) and metrics (HTTP) endpoints listen on (0.0.0.0 in containers)',
    },
    opsPublic: {
      env: 'TOOLHUB_OPS_PUBLIC',
      schema: zBoolean().default(false),
      description:
        'Serve health, reflection and /metrics (every tool name) on a non-loopback TOOLHUB_OPS_HOST; they have no auth, so only where the network is private (containers, a pod); otherwise such a start is refused',
    },
    healthPort: {
      env: 'TOOLHUB_HEALTH_PORT',
      schema: port.default(0),
      description: 'Port of grpc.health.v1 with reflection ("" and "readiness" = ready, "liveness" = alive); 0 = a free port (logged), -1 = off',
    },
    shutdownDelayMs: {
      env: 'TOOLHUB_SHUTDOWN_DELAY_MS',
      schema: z.coerce.number().int().min(0).max(600_000).default(0),
      description:
        'On SIGTERM, report not ready (health and the API ports\' health) and keep serving this long before closing listeners and draining, so load balancers and Services stop sending calls first; 0 = close at once',
    },
    metricsPort: {
      env: 'TOOLHUB_METRICS_PORT',
      schema: port.default(0),
      description: 'Port of the Prometheus /metrics endpoint (HTTP; also /livez and /readyz); 0 = a free port (logged), -1 = off',
    },
  };
}

/** What `startOps` needs from the loaded config. */
export interface OpsConfig {
  opsHost: string;
  /** Allow a non-loopback `opsHost` (TOOLHUB_OPS_PUBLIC). @default false */
  opsPublic?: boolean;
  healthPort: number;
  metricsPort: number;
  /** TOOLHUB_SHUTDOWN_DELAY_MS (see drain.ts). @default 0 */
  shutdownDelayMs?: number;
}
