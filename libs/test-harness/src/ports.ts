/** TCP port helpers. */
import { readFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';

import { waitFor } from './wait';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago. Another process could take it before you
 * bind; servers started by this harness retry on a new port when that happens.
 *
 * Picked below the kernel's ephemeral range (`ip_local_port_range`) where there is room: a port the
 * OS hands out for `listen(0)` comes from that range, which every outgoing connection on the
 * machine also draws its local port from, so on a busy machine a connection could take it before
 * the test's server bound it (seen in CI: EADDRINUSE on a chart's health port). Elsewhere, or when
 * no port below it is free, the OS picks one as before.
 */
export async function freePort(): Promise<number> {
  const range = portsBelowEphemeral();
  if (range) {
    for (let attempt = 0; attempt < 20; attempt++) {
      const port = range.from + Math.floor(Math.random() * (range.to - range.from + 1));
      if (handedOut.has(port)) continue;
      if ((await listenOnce(port)) !== undefined) {
        handedOut.add(port);
        return port;
      }
    }
  }
  const port = await listenOnce(0);
  if (port === undefined) throw new Error('could not determine a free port');
  return port;
}

/** Ports this process handed out: two callers never get the same one before either binds it. */
const handedOut = new Set<number>();

/** 10000 up to the ephemeral range's start, if the range starts high enough to leave room. */
function portsBelowEphemeral(): { from: number; to: number } | undefined {
  let low: number;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return undefined;
  }
  return Number.isInteger(low) && low > 12_000 ? { from: 10_000, to: low - 1 } : undefined;
}

/** Listens on `port` of 127.0.0.1 (0: one the OS picks) and closes again: the port bound, or undefined if it could not be. */
function listenOnce(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : undefined;
      server.close(() => resolve(bound));
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
