import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

import { freePort } from '../src/ports';

const RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range';

describe('freePort', () => {
  it('hands out distinct ports that can be bound, below the ephemeral range when there is room', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 40; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    const low = existsSync(RANGE_FILE) ? Number(readFileSync(RANGE_FILE, 'utf8').trim().split(/\s+/)[0]) : 0;
    // Outgoing connections take their local port from the ephemeral range, so a port from there can
    // be gone before the test's server binds it.
    if (low > 12_000) expect(ports.every((p) => p >= 10_000 && p < low)).toBe(true);
    for (const port of ports.slice(0, 5)) {
      await new Promise<void>((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
      });
    }
  });
});
