/**
 * The relay floor of the dispatcher benchmark, as its own process: a grpc-js server whose one
 * method forwards the request bytes as a NATS request to the no-op adapter and answers with the
 * reply bytes — the two hops a dispatcher makes (gRPC in, NATS out and back, gRPC out) with no
 * ToolHub logic: no protobuf of ours, no lookup, validation, admission, events or telemetry. The
 * agent sends an already encoded adapter RunRequest. Built and run by the bench as
 * `node dist/bench/dispatcher/bare-relay.js` (NATS_URL, RELAY_PORT).
 */
import { type sendUnaryData, Server, ServerCredentials, type ServerUnaryCall, status } from '@grpc/grpc-js';
import { connect, headers as natsHeaders } from '@nats-io/transport-node';
import { HEADER_DEADLINE, HEADER_ERROR_CODE, adapterSubject } from '@toolhub/contracts';

import { BENCH_PROVIDER, RELAY_METHOD } from './noop-tool';

const TIMEOUT_MS = 10_000;
const raw = (b: Buffer): Buffer => b;

async function main(): Promise<void> {
  const nc = await connect({ servers: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222', name: 'bench-bare-relay' });
  const subject = adapterSubject(BENCH_PROVIDER, 'run');
  const server = new Server();
  const definition = { path: RELAY_METHOD, requestStream: false, responseStream: false, requestSerialize: raw, requestDeserialize: raw, responseSerialize: raw, responseDeserialize: raw };
  server.addService({ Run: definition }, {
    Run: (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
      // The adapter SDK refuses a request without a deadline, so the relay sends the one header it needs.
      const h = natsHeaders();
      h.set(HEADER_DEADLINE, String(Date.now() + TIMEOUT_MS));
      nc.request(subject, call.request, { timeout: TIMEOUT_MS, headers: h }).then(
        (reply) => {
          const code = reply.headers?.get(HEADER_ERROR_CODE);
          if (code) callback({ code: status.INTERNAL, details: `the adapter answered ${code}` });
          else callback(null, Buffer.from(reply.data));
        },
        (err: unknown) => callback({ code: status.UNAVAILABLE, details: String(err) }),
      );
    },
  });
  // The standard health check, answered from memory (SERVING), so the bench can give this process
  // the same gRPC-floor slices it gives the dispatcher: a process's CPU per call depends on what it
  // did between its own slices (bench/dispatcher/README.md, 2026-11-29 evening).
  const serving = Buffer.from([0x08, 0x01]); // grpc.health.v1.HealthCheckResponse { status: SERVING }
  const check = { path: '/grpc.health.v1.Health/Check', requestStream: false, responseStream: false, requestSerialize: raw, requestDeserialize: raw, responseSerialize: raw, responseDeserialize: raw };
  server.addService({ Check: check }, { Check: (_call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => callback(null, serving) });
  const port = await new Promise<number>((ok, fail) =>
    server.bindAsync(`127.0.0.1:${process.env['RELAY_PORT'] ?? '0'}`, ServerCredentials.createInsecure(), (err, bound) => (err ? fail(err) : ok(bound))),
  );
  process.stdout.write(`bare relay listening on ${port}\n`);
  const stop = async (): Promise<void> => {
    server.forceShutdown();
    await nc.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((err: unknown) => {
  process.stderr.write(`bare relay failed: ${String(err)}\n`);
  process.exit(1);
});
