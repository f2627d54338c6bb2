import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';

import {
  canConnect,
  freePort,
  mongoUrl,
  natsUrl,
  redisUrl,
  spawnProcess,
  startMongoServer,
  startNatsServer,
  startRedisServer,
  stopSharedServers,
  waitFor,
} from '../src/index';

/** Sends one raw command line and returns the first reply line. */
function rawLine(port: number, send: string | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => send && socket.write(send));
    socket.setTimeout(3000, () => reject(new Error('no reply')));
    socket.once('data', (d) => {
      socket.destroy();
      resolve(d.toString('utf8').split('\r\n')[0] ?? '');
    });
    socket.once('error', reject);
  });
}

/** MongoDB `ping` over OP_MSG, hand-encoded so the test needs no driver; true when `ok: 1`. */
function mongoPing(url: string): Promise<boolean> {
  const port = Number(new URL(url).port);
  const int32 = (n: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeInt32LE(n);
    return b;
  };
  const fields = Buffer.concat([Buffer.from([0x10]), Buffer.from('ping\0'), int32(1), Buffer.from([0x02]), Buffer.from('$db\0'), int32(6), Buffer.from('admin\0'), Buffer.from([0])]);
  const doc = Buffer.concat([int32(fields.length + 4), fields]);
  const msg = Buffer.concat([int32(16 + 4 + 1 + doc.length), int32(1), int32(0), int32(2013), int32(0), Buffer.from([0]), doc]);
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => socket.write(msg));
    let buf = Buffer.alloc(0);
    socket.setTimeout(3000, () => reject(new Error('no reply')));
    socket.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length < 4 || buf.length < buf.readInt32LE(0)) return;
      socket.destroy();
      const i = buf.indexOf(Buffer.from([0x01, 0x6f, 0x6b, 0x00])); // double "ok"
      resolve(i > 0 && buf.readDoubleLE(i + 4) === 1);
    });
    socket.once('error', reject);
  });
}

afterAll(async () => {
  await stopSharedServers();
});

describe('spawnProcess', () => {
  it('resolves once a line matches readyPattern and keeps the output', async () => {
    const proc = await spawnProcess('sh', ['-c', 'echo booting; sleep 0.2; echo "READY on 1234" >&2; sleep 30'], { readyPattern: /READY on \d+/ });
    expect(proc.output()).toContain('booting');
    expect(proc.output()).toContain('READY on 1234');
    expect(await proc.kill()).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('fails loudly, with the install hint, when the command is not installed', async () => {
    await expect(spawnProcess('toolhub-no-such-binary', [], { installHint: 'apt-get install -y toolhub-thing' })).rejects.toThrow(
      /"toolhub-no-such-binary" is not installed or not on PATH\. Install it: apt-get install -y toolhub-thing/,
    );
  });

  it('fails with the exit code and output when the process exits before it is ready', async () => {
    await expect(spawnProcess('sh', ['-c', 'echo config broken; exit 3'], { readyPattern: /never/ })).rejects.toThrow(
      /exited early \(code 3, signal null\)\. Output:\nconfig broken/,
    );
  });

  it('kills the process and fails when it is not ready in time', async () => {
    await expect(spawnProcess('sleep', ['30'], { readyPattern: /never/, timeoutMs: 200 })).rejects.toThrow(/was not ready within 200 ms/);
  });

  it('a child dies soon after the test process that started it is killed (watchdog)', async () => {
    // A parent Node process that starts `sleep` through the harness, prints its pid, then waits.
    const harness = join(__dirname, '..', 'src', 'process.ts');
    const script = `import(${JSON.stringify(harness)}).then(async (m) => { const h = m.spawnProcess ? m : m.default; const p = await h.spawnProcess('sleep', ['300']); console.log('CHILD ' + p.pid); setInterval(() => {}, 1000); });`;
    const parent = await spawnProcess(process.execPath, ['--import', 'tsx', '-e', script], { readyPattern: /CHILD \d+/, timeoutMs: 30_000 });
    const childPid = Number(/CHILD (\d+)/.exec(parent.output())?.[1]);
    const alive = (): boolean => {
      try {
        process.kill(childPid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(alive()).toBe(true);
    await parent.kill('SIGKILL');
    await waitFor(() => !alive(), { timeoutMs: 5000, message: `pid ${childPid} to be killed by its watchdog` });
  }, 40_000);
});

describe('servers', () => {
  it('freePort returns a port nothing listens on', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    expect(await canConnect(port)).toBe(false);
  });

  it('startNatsServer runs JetStream on loopback and survives kill + restart on the same port', async () => {
    const nats = await startNatsServer();
    try {
      expect(nats.url).toBe(`nats://127.0.0.1:${nats.port}`);
      const info = await rawLine(nats.port, undefined);
      expect(info).toMatch(/^INFO /);
      expect(info).toContain('"jetstream":true');
      const firstPid = nats.pid;
      await nats.kill();
      expect(await canConnect(nats.port)).toBe(false);
      await nats.restart();
      expect(nats.pid).not.toBe(firstPid);
      expect(await canConnect(nats.port)).toBe(true);
    } finally {
      await nats.dispose();
    }
    expect(existsSync(nats.storeDir)).toBe(false);
  });

  it('natsUrl gives a reachable NATS server (NATS_URL or a private one)', async () => {
    const url = await natsUrl();
    expect(await rawLine(Number(new URL(url).port), undefined)).toMatch(/^INFO /);
  });

  it('startRedisServer and redisUrl give a Redis that answers PING', async () => {
    const redis = await startRedisServer();
    try {
      expect(await rawLine(redis.port, 'PING\r\n')).toBe('+PONG');
    } finally {
      await redis.stop();
    }
    const url = await redisUrl();
    expect(await rawLine(Number(new URL(url).port), 'PING\r\n')).toBe('+PONG');
  });

  it('startMongoServer and mongoUrl give a MongoDB wire-protocol server that answers ping', async () => {
    const mongo = await startMongoServer();
    try {
      expect(mongo.url).toBe(`mongodb://127.0.0.1:${mongo.port}/`);
      expect(await mongoPing(mongo.url)).toBe(true);
    } finally {
      await mongo.stop();
    }
    expect(await mongoPing(await mongoUrl())).toBe(true);
  }, 30_000);
});
