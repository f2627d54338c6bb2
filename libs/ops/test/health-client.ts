/** A grpc.health.v1 client for tests, as a probe would call it. */
import { credentials, loadPackageDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { protoPath } from 'grpc-health-check';

type CheckFn = (req: { service: string }, opts: { deadline: Date }, cb: (err: Error | null, res?: { status: string }) => void) => void;

export interface HealthClient {
  /** Resolves with SERVING, NOT_SERVING, ...; rejects when the server cannot be reached or the service is unknown. */
  check(service?: string): Promise<string>;
  close(): void;
}

export function healthClient(address: string): HealthClient {
  const def = loadSync(protoPath, { keepCase: true, enums: String });
  const pkg = loadPackageDefinition(def) as unknown as { grpc: { health: { v1: { Health: new (a: string, c: unknown) => { Check: CheckFn; close(): void } } } } };
  const client = new pkg.grpc.health.v1.Health(address, credentials.createInsecure());
  return {
    check: (service = '') =>
      new Promise((resolve, reject) => client.Check({ service }, { deadline: new Date(Date.now() + 3000) }, (err, res) => (err ? reject(err) : resolve(res!.status)))),
    close: () => client.close(),
  };
}
