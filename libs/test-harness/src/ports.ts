/** TCP port helpers. */
import { createConnection, createServer } from 'node:net';

import { waitFor } from './wait';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it). Another process could take
 * it before you bind; servers started by this harness retry on a new port when that happens.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('could not determine a free port'))));
    });
  });
}

/** True when something accepts TCP connections on host:port. */
export function canConnect(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Waits until host:port accepts connections. @throws Error after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs = 10_000, host = '127.0.0.1'): Promise<void> {
  await waitFor(() => canConnect(port, host), { timeoutMs, intervalMs: 50, message: `${host}:${port} to accept connections` });
}
