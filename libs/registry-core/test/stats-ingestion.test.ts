import { InProcessBus } from '@toolhub/bus';
import { eventSubject, ToolCalled, toolCalledMessage } from '@toolhub/contracts';
import { type RegistryStore } from '@toolhub/store';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { StatsIngestion } from '../src/stats-ingestion';
import { waitFor } from '@toolhub/test-harness';

const call = (id: string, at = Date.now()): ToolCalled => ({
  eventId: id,
  toolId: 'local:echo_text',
  provider: 'local',
  name: 'echo_text',
  status: 'ok',
  errorCode: 0,
  latencyMs: 3,
  attempts: 1,
  fallbackUsed: '',
  caller: '',
  timestampUnixMs: at,
  searchId: '',
  claimGroup: '',
});

async function eventually(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  await waitFor(check, { timeoutMs: 6000, intervalMs: 20, message: what });
}

/** A store whose statistics writes fail while `down` is set (the database unreachable). */
function flaky(store: RegistryStore): RegistryStore & { down: boolean } {
  const wrapped = Object.create(store) as RegistryStore & { down: boolean };
  wrapped.down = false;
  wrapped.recordCalls = (events) => (wrapped.down ? Promise.reject(new Error('connection refused (test)')) : store.recordCalls(events));
  return wrapped;
}

describe('statistics ingestion', () => {
  it('logs a store outage once when it starts and once when it ends, and counts every event after it', async () => {
    const bus = new InProcessBus({ redeliveryDelayMs: 10 });
    const store = flaky(await EmbeddedRegistryStore.open({ dir: mkdtempSync(join(tmpdir(), 'ingest-')) }));
    const logs: Array<{ level: string; msg: string }> = [];
    const log = { info: (_: object, msg?: string) => void logs.push({ level: 'info', msg: msg ?? '' }), warn: (_: object, msg?: string) => void logs.push({ level: 'warn', msg: msg ?? '' }), error: (_: object, msg?: string) => void logs.push({ level: 'error', msg: msg ?? '' }) };
    const ingestion = await StatsIngestion.start(bus, store, { durable: 'stats', maxBatch: 10, log });
    const publish = (ids: string[]) => Promise.all(ids.map((id) => bus.publishEvent(eventSubject('tool.called', 'local'), ToolCalled.encode(call(id)).finish(), { msgId: id })));
    try {
      await publish(['a1', 'a2']);
      await eventually(() => ingestion.ingested === 2, 'the first events');
      store.down = true;
      await publish(['b1', 'b2', 'b3']);
      await eventually(() => ingestion.status().storeFailures >= 3, 'several failed batches');
      expect(ingestion.status()).toMatchObject({ storeHealthy: false, storeDetail: expect.stringContaining('connection refused') });
      store.down = false;
      await eventually(() => ingestion.ingested === 5, 'the events written once the store is back');
      expect(ingestion.status()).toMatchObject({ storeHealthy: true, storeFailures: 0 });
      expect(ingestion.status().storeFailuresTotal).toBeGreaterThanOrEqual(3);
      expect(logs.filter((l) => l.level === 'error')).toHaveLength(1);
      expect(logs.filter((l) => l.level === 'info' && /works again/.test(l.msg))).toHaveLength(1);
      expect((await store.getToolStats('local:echo_text'))?.calls).toBe(5);
    } finally {
      await ingestion.close();
      await bus.close();
      await store.close();
    }
  });

  it('logs a failed upkeep as a warning and goes on counting (the batch was recorded, nothing is retried for it)', async () => {
    const bus = new InProcessBus({ redeliveryDelayMs: 10 });
    const inner = await EmbeddedRegistryStore.open({ dir: mkdtempSync(join(tmpdir(), 'ingest-')) });
    const store = Object.create(inner) as RegistryStore;
    store.recordCalls = async (events) => ({ ...(await inner.recordCalls(events)), upkeepError: 'extended protocol limited to 65535 parameters (test)' });
    const logs: Array<{ level: string; msg: string; fields: object }> = [];
    const entry = (level: string) => (fields: object, msg?: string) => void logs.push({ level, msg: msg ?? '', fields });
    const ingestion = await StatsIngestion.start(bus, store, { durable: 'stats', maxBatch: 10, log: { info: entry('info'), warn: entry('warn'), error: entry('error') } });
    try {
      await bus.publishEvent(eventSubject('tool.called', 'local'), ToolCalled.encode(call('u1')).finish(), { msgId: 'u1' });
      await eventually(() => ingestion.ingested === 1, 'the event counted');
      expect(logs.filter((l) => l.level === 'warn')).toEqual([{ level: 'warn', msg: expect.stringContaining('upkeep failed'), fields: { error: expect.stringContaining('65535') } }]);
      expect(logs.filter((l) => l.level === 'error')).toHaveLength(0);
      expect(ingestion.status()).toMatchObject({ storeHealthy: true, storeFailuresTotal: 0 });
    } finally {
      await ingestion.close();
      await bus.close();
      await inner.close();
    }
  });
  it('counts the events of batch messages and of single ones alike, once each, and skips a message that does not decode', async () => {
    const bus = new InProcessBus({ redeliveryDelayMs: 10 });
    const store = await EmbeddedRegistryStore.open({ dir: mkdtempSync(join(tmpdir(), 'ingest-')) });
    const logs: Array<{ level: string; msg: string; fields: object }> = [];
    const entry = (level: string) => (fields: object, msg?: string) => void logs.push({ level, msg: msg ?? '', fields });
    const ingestion = await StatsIngestion.start(bus, store, { durable: 'stats', maxBatch: 10, log: { info: entry('info'), warn: entry('warn'), error: entry('error') } });
    const publish = (m: { subject: string; data: Uint8Array; msgId: string }) => bus.publishEvent(m.subject, m.data, { msgId: m.msgId });
    const encoded = (id: string) => ({ eventId: id, data: ToolCalled.encode(call(id)).finish() });
    try {
      await publish(toolCalledMessage('local', ['b1', 'b2', 'b3'].map(encoded)));
      await publish(toolCalledMessage('local', [encoded('s1')]));
      // b3 again, in a batch of other events (a dispatcher's retry that grouped it differently).
      await publish(toolCalledMessage('local', ['b3', 'b4'].map(encoded)));
      await publish({ subject: eventSubject('tool.called.batch', 'local'), data: Uint8Array.from([10, 50, 1]), msgId: 'garbage' });
      await publish(toolCalledMessage('local', [encoded('s2')]));
      await eventually(async () => (await store.getToolStats('local:echo_text'))?.calls === 6, 'six distinct events counted');
      expect(logs.filter((l) => l.level === 'warn')).toEqual([
        { level: 'warn', msg: 'undecodable tool.called message skipped', fields: expect.objectContaining({ subject: 'toolhub.v1.events.tool.called.batch.local', bytes: 3 }) },
      ]);
      expect(ingestion.status()).toMatchObject({ storeHealthy: true, storeFailuresTotal: 0 });
    } finally {
      await ingestion.close();
      await bus.close();
      await store.close();
    }
  });

  it('takes grouped messages with a consumer of their own and passes their claim group on, and only theirs', async () => {
    const bus = new InProcessBus({ redeliveryDelayMs: 10 });
    const inner = await EmbeddedRegistryStore.open({ dir: mkdtempSync(join(tmpdir(), 'ingest-')) });
    const store = Object.create(inner) as RegistryStore;
    const seen: Array<[string, string]> = [];
    store.recordCalls = (events) => {
      for (const e of events) seen.push([e.eventId, e.claimGroup]);
      return inner.recordCalls(events);
    };
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const ingestion = await StatsIngestion.start(bus, store, { durable: 'stats', maxBatch: 10, log });
    const group = `${Date.now()}-d1-1`;
    const stamped = (id: string) => ({ eventId: id, data: ToolCalled.encode({ ...call(id), claimGroup: group }).finish() });
    const publish = (m: { subject: string; data: Uint8Array; msgId: string }) => bus.publishEvent(m.subject, m.data, { msgId: m.msgId });
    try {
      await publish(toolCalledMessage('local', ['g1', 'g2', 'g3'].map(stamped), { grouped: true }));
      // Stamped events on the batch subject (a producer that should not): counted by event id.
      await publish(toolCalledMessage('local', ['b1', 'b2'].map(stamped)));
      await eventually(async () => (await inner.getToolStats('local:echo_text'))?.calls === 5, 'five events counted');
      // Each message reached one consumer: the grouped one by 'stats-grouped', the batch by 'stats'.
      expect(seen.sort()).toEqual([
        ['b1', ''],
        ['b2', ''],
        ['g1', group],
        ['g2', group],
        ['g3', group],
      ]);
    } finally {
      await ingestion.close();
      await bus.close();
      await inner.close();
    }
  });
});
