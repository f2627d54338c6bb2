/**
 * What a gRPC API port needs to live behind a load balancer or a Kubernetes Service: connections
 * that end after an age (so replicas the autoscaler adds receive traffic: HTTP/2 connections
 * otherwise stay with the replica they first reached), and a health service on the API port that
 * tells the truth — not SERVING while the app is not ready or is draining, so a load balancer
 * health-checking that port stops sending calls before the listener goes away.
 */
import type { ChannelOptions } from '@grpc/grpc-js';
import { z } from 'zod';
import type { HealthImplementation } from 'grpc-health-check';

/** Config field of the API ports' connection age (env TOOLHUB_GRPC_MAX_CONNECTION_AGE_MS), spread into the apps that serve gRPC. */
export function grpcServerConfigFields() {
  return {
    grpcMaxConnectionAgeMs: {
      env: 'TOOLHUB_GRPC_MAX_CONNECTION_AGE_MS',
      schema: z.coerce.number().int().min(0).default(0),
      description: 'Close client connections of the gRPC API after this age in ms (GOAWAY; calls in flight get up to 30 s more), so clients spread over replicas added later; 0 = never',
    },
  };
}

/** grpc-js server options for `maxConnectionAgeMs` (none when 0). */
export function connectionAgeOptions(maxConnectionAgeMs = 0): ChannelOptions {
  if (!(maxConnectionAgeMs > 0)) return {};
  return { 'grpc.max_connection_age_ms': maxConnectionAgeMs, 'grpc.max_connection_age_grace_ms': Math.min(maxConnectionAgeMs, 30_000) };
}

/**
 * Keeps the health statuses of an API port (`''` and each service) equal to `ready()`, checked
 * every `intervalMs`, until {@link ApiHealth.drain} turns them NOT_SERVING for good.
 */
export class ApiHealth {
  private draining = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly health: HealthImplementation,
    private readonly services: readonly string[],
    private readonly ready: () => boolean,
    intervalMs = 250,
  ) {
    this.apply();
    this.timer = setInterval(() => this.apply(), intervalMs);
    this.timer.unref();
  }

  /** Not serving from now on (shutdown: the listener keeps answering while callers move away). */
  drain(): void {
    this.draining = true;
    clearInterval(this.timer);
    this.set('NOT_SERVING');
  }

  private apply(): void {
    if (!this.draining) this.set(this.ready() ? 'SERVING' : 'NOT_SERVING');
  }

  private set(status: 'SERVING' | 'NOT_SERVING'): void {
    for (const s of ['', ...this.services]) this.health.setStatus(s, status);
  }
}
