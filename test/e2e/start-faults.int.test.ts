/**
 * Faults at start: a dispatcher started before NATS waits for it (live, not ready) instead of
 * exiting, and an outbox a dead dispatcher left damaged (a corrupt record in the middle, a torn
 * tail, as a full disk or a crash leave them) never stops it from starting: the whole records are
 * published, the damage is reported and the corrupt segment moved aside.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { decodeToolCalledMessage, EVENTS_STREAM, ToolCalled } from '@toolhub/contracts';
import { freePort, scratchDir, startNatsServer, type NatsServerHandle, waitFor } from '@toolhub/test-harness';
import { appendFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

import { frameRecord } from '../../libs/dispatcher-core/src/outbox/frames';
import { testEvent } from '../../libs/dispatcher-core/test/support/events';
import { startApp } from './support/stack';

const event = (i: number): Uint8Array => ToolCalled.encode(testEvent(i, { eventId: `start-faults-${i}`, caller: 'start-faults' })).finish();

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}

describe('a dispatcher starting amid faults', () => {
  let nats: NatsServerHandle | undefined;
  afterAll(async () => {
    await nats?.stop();
  });

  it('starts before NATS (live, not ready, retrying), serves once NATS comes, and publishes a damaged outbox\'s whole records', async () => {
    const outbox = scratchDir('start-faults-outbox');
    // A dead dispatcher's directory: 3 good records, damage between them, and a torn tail.
    const dead = join(outbox, 'dispatcher-999999-deadbeef');
    mkdirSync(dead);
    writeFileSync(join(dead, 'owner.json'), JSON.stringify({ pid: 2 ** 22 + 77, host: hostname(), startedUnixMs: 1 }));
    const seg = join(dead, 'seg-0000000001.log');
    writeFileSync(seg, Buffer.concat([frameRecord(event(0)), Buffer.from('torn by a full disk'), frameRecord(event(1)), frameRecord(event(2))]));
    appendFileSync(seg, frameRecord(event(3)).subarray(0, 7));

    const natsPort = await freePort();
    const metricsPort = await freePort();
    const dispatcher = await startApp(
      'dispatcher',
      {
        NATS_URL: `nats://127.0.0.1:${natsPort}`,
        TOOLHUB_GRPC_PORT: String(await freePort()),
        TOOLHUB_METRICS_PORT: String(metricsPort),
        TOOLHUB_HEALTH_PORT: String(await freePort()),
        TOOLHUB_OUTBOX_DIR: outbox,
        TOOLHUB_MCP_PORT: '0',
        // This test's private NATS has no users: no credentials.
        NATS_USER: '',
        NATS_PASSWORD: '',
      },
      /NATS not reachable yet/,
    );
    try {
      expect((await get(`http://127.0.0.1:${metricsPort}/livez`)).status).toBe(200);
      const waiting = await waitFor(async () => {
        const r = await get(`http://127.0.0.1:${metricsPort}/readyz`);
        return r.body.includes('waiting for NATS') ? r : undefined;
      }, { timeoutMs: 20_000, message: '/readyz to say it waits for NATS' });
      expect(waiting.status).toBe(503);
      // Nothing was claimed yet: the outbox waits with the process.
      expect(existsSync(dead)).toBe(true);

      nats = await startNatsServer({ port: natsPort });
      await waitFor(() => /dispatcher listening on/.test(dispatcher.output()), { timeoutMs: 60_000, message: 'the dispatcher to listen once NATS is up' });
      await waitFor(() => /damaged outbox segment/.test(dispatcher.output()), { timeoutMs: 10_000, message: 'the damage to be reported' });

      // The whole records reach JetStream; the corrupt segment is kept aside for a person.
      const nc = await connect({ servers: nats.url });
      try {
        const js = (await jetstreamManager(nc)).jetstream();
        const consumer = await js.consumers.get(EVENTS_STREAM);
        const seen = new Set<string>();
        await waitFor(async () => {
          const batch = await consumer.fetch({ max_messages: 100, expires: 1000 });
          for await (const m of batch) for (const e of decodeToolCalledMessage(m.subject, m.data)) seen.add(e.eventId);
          return seen.size >= 3;
        }, { timeoutMs: 30_000, message: 'the recovered events in JetStream' });
        expect([...seen].sort()).toEqual(['start-faults-0', 'start-faults-1', 'start-faults-2']);
      } finally {
        await nc.close();
      }
      expect(readdirSync(join(outbox, 'damaged'))).toEqual(['dispatcher-999999-deadbeef-seg-0000000001.log']);
      await waitFor(() => !readdirSync(outbox).some((f) => f.startsWith('recovering-')), { timeoutMs: 10_000, message: 'the recovered directory deleted once stored' });
      expect(dispatcher.output()).toMatch(/torn record/);
    } finally {
      await dispatcher.kill('SIGTERM');
    }
  });
});
