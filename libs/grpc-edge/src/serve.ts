/** Binding and graceful shutdown shared by ToolHub's gRPC servers. */
import { type Server, ServerCredentials } from '@grpc/grpc-js';
import type { HealthImplementation } from 'grpc-health-check';

/** Binds `server` to `host:port` (0 = any free port) and resolves with the bound port. */
export function bindServer(server: Server, host: string, port: number): Promise<number> {
  return new Promise<number>((resolve, reject) => server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))));
}

/**
 * Stops a server the way SIGTERM should: health turns NOT_SERVING (so load balancers drain it),
 * new calls are refused, in-flight calls get `graceMs` to finish, then the rest are cut.
 */
export function closeServer(server: Server, health: HealthImplementation, services: string[], graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    for (const s of ['', ...services]) health.setStatus(s, 'NOT_SERVING');
    const force = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}
