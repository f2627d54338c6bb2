/**
 * grpc.health.v1 on its own port, with reflection that serves the health descriptor, so
 * Kubernetes' native gRPC probes, grpc-health-probe and `grpcurl ... grpc.health.v1.Health/Check`
 * all work on every app (adapters have no other gRPC server).
 *
 * Service names: "" and "readiness" are SERVING while every readiness check passes; "liveness" is
 * SERVING while the process answers at all (a stuck dependency must not get the pod restarted).
 */
import { Server } from '@grpc/grpc-js';
import { addReflection, bindServer, closeServer, DescriptorIndex } from '@toolhub/grpc-edge';
import { HealthImplementation } from 'grpc-health-check';

/** Health service names every app serves. */
export const HEALTH_SERVICES = { readiness: 'readiness', liveness: 'liveness' } as const;

export interface RunningHealthServer {
  readonly port: number;
  /** `host:port` to dial. */
  readonly address: string;
  /** Sets "" and "readiness". */
  setReady(ready: boolean): void;
  close(): Promise<void>;
}

/** Starts the health server, not ready until `setReady(true)`. */
export async function startHealthServer(host: string, port: number): Promise<RunningHealthServer> {
  const server = new Server({ 'grpc.enable_channelz': 0 });
  const health = new HealthImplementation({ '': 'NOT_SERVING', [HEALTH_SERVICES.readiness]: 'NOT_SERVING', [HEALTH_SERVICES.liveness]: 'SERVING' });
  health.addToServer(server);
  const index = new DescriptorIndex();
  index.addServiceNames('grpc.health.v1.Health');
  addReflection(server, index);
  const bound = await bindServer(server, host, port);
  let closed: Promise<void> | undefined;
  return {
    port: bound,
    address: `${host}:${bound}`,
    setReady(ready) {
      const status = ready ? 'SERVING' : 'NOT_SERVING';
      health.setStatus('', status);
      health.setStatus(HEALTH_SERVICES.readiness, status);
    },
    close() {
      closed ??= closeServer(server, health, [HEALTH_SERVICES.readiness, HEALTH_SERVICES.liveness], 1000);
      return closed;
    },
  };
}
