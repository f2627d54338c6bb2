/**
 * No call event is lost when NATS and then the dispatcher are killed (kill -9), each in its own
 * process: calls run under load, nats-server is SIGKILLed (the dispatcher now answers RunTool at
 * once with UNAVAILABLE, and those answers are events too), then the dispatcher is SIGKILLed
 * while its events wait in its on-disk outbox. Both come back (NATS on the same store, the
 * dispatcher on the same outbox directory). Every call whose reply the client received must then
 * be in the JetStream stream exactly once, with the status the client saw.
 *
 * Each call carries a unique `caller`, which the event records: that is how the test matches
 * replies to events without reading the dispatcher's internals.
 */
import { status } from '@grpc/grpc-js';
import { NatsBus } from '@toolhub/bus';
import { decodeToolCalledMessage, RunStatus, TOOL_CALLED_FILTERS } from '@toolhub/contracts';
import { freePort, type NatsServerHandle, scratchDir, spawnProcess, type SpawnedProcess, startNatsServer, waitFor } from '@toolhub/test-harness';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { type CallError, connectClient, type TestClient } from '../../libs/dispatcher-core/test/support/grpc-client';

const ROOT = join(__dirname, '../..');
const TS_NODE = ['--import', 'tsx'];
const CONCURRENCY = 8;

interface Reply {
  caller: string;
  /** The status the event should carry. */
  expected: string;
}

describe('call events survive kill -9 of NATS and then of the dispatcher', () => {
  let nats: NatsServerHandle;
  let adapter: SpawnedProcess | undefined;
  let dispatcher: SpawnedProcess | undefined;
  let client: TestClient | undefined;
  let port: number;
  const outbox = scratchDir('durable-outbox');
  const root = scratchDir('durable-root');

  const startDispatcher = async (): Promise<SpawnedProcess> =>
    spawnProcess(process.execPath, [...TS_NODE, 'apps/dispatcher/src/main.ts'], {
      cwd: ROOT,
      env: { NATS_URL: nats.url, TOOLHUB_GRPC_PORT: String(port), TOOLHUB_MCP_PORT: '0', TOOLHUB_OUTBOX_DIR: outbox, TOOLHUB_EVENT_DURABILITY: 'outbox', LOG_LEVEL: 'info' },
      readyPattern: /dispatcher listening/,
      timeoutMs: 60_000,
    });

  beforeAll(async () => {
    nats = await startNatsServer();
    port = await freePort();
    writeFileSync(join(root, 'notes.txt'), 'hello\n');
    [adapter, dispatcher] = await Promise.all([
      spawnProcess(process.execPath, [...TS_NODE, 'apps/adapter-local/src/main.ts'], {
        cwd: ROOT,
        env: { NATS_URL: nats.url, TOOLHUB_LOCAL_ROOT: root, LOG_LEVEL: 'warn' },
        timeoutMs: 60_000,
      }),
      startDispatcher(),
    ]);
    client = connectClient(`127.0.0.1:${port}`);
    await waitFor(async () => (await client!.listProviders({})).providers.some((p) => p.provider === 'local'), { timeoutMs: 30_000, message: 'adapter-local to be seen' });
  }, 120_000);

  afterAll(async () => {
    client?.close();
    await Promise.all([dispatcher?.kill('SIGTERM'), adapter?.kill('SIGTERM')]);
    await nats?.dispose();
  });

  it('stores the event of every call the client got an answer for, exactly once', async () => {
    const replies: Reply[] = [];
    let sent = 0;
    let stop = false;
    const call = async (): Promise<void> => {
      const caller = `c${sent++}`;
      try {
        const res = await client!.runTool({ provider: 'local', name: 'math_calculate', arguments: { expression: '6 * 7' }, caller }, { deadlineMs: 10_000 });
        replies.push({ caller, expected: res.status === RunStatus.RUN_STATUS_OK ? 'ok' : 'tool_error' });
      } catch (err) {
        const code = (err as CallError).code;
        // UNAVAILABLE from the dispatcher (NATS down) is a reply with an event; a dead dispatcher's
        // connection error (no details from it) is not: nobody could have recorded that call.
        if (code === status.UNAVAILABLE && /message bus/.test((err as CallError).details ?? '')) replies.push({ caller, expected: 'unavailable' });
      }
    };
    const worker = async (): Promise<void> => {
      while (!stop) await call();
    };
    const workers = Array.from({ length: CONCURRENCY }, worker);

    await waitFor(() => replies.length >= 200, { timeoutMs: 60_000, message: '200 calls before the kills' });
    await nats.kill();
    const atKill = replies.length;
    await waitFor(() => replies.filter((r) => r.expected === 'unavailable').length >= 50, { timeoutMs: 30_000, message: 'fast UNAVAILABLE answers while NATS is down' });
    await dispatcher!.kill('SIGKILL');
    stop = true;
    await Promise.all(workers);

    await nats.restart();
    dispatcher = await startDispatcher();

    const bus = await NatsBus.connect({ servers: nats.url, name: 'durable-events-test' });
    const seen = new Map<string, { ids: Set<string>; statuses: string[] }>();
    const consumer = await bus.consumeEvents({
      durable: 'durable-events-audit',
      filterSubjects: [...TOOL_CALLED_FILTERS],
      handler: async (batch) => {
        for (const e of batch.flatMap((m) => decodeToolCalledMessage(m.subject, m.data))) {
          const s = seen.get(e.caller) ?? { ids: new Set<string>(), statuses: [] };
          if (!s.ids.has(e.eventId)) s.statuses.push(e.status);
          s.ids.add(e.eventId);
          seen.set(e.caller, s);
        }
      },
    });
    try {
      const missing = (): Reply[] => replies.filter((r) => !seen.has(r.caller));
      await waitFor(() => missing().length === 0, { timeoutMs: 60_000, intervalMs: 200, message: 'every answered call to be in the stream' }).catch(() => undefined);
      const lost = missing();
      const wrong = replies.filter((r) => seen.get(r.caller) && seen.get(r.caller)!.statuses.join() !== r.expected);
      const doubled = [...seen.entries()].filter(([, s]) => s.ids.size > 1);
      process.stdout.write(
        `durable-events report: ${JSON.stringify({ sent, answered: replies.length, answeredBeforeNatsKill: atKill, unavailable: replies.filter((r) => r.expected === 'unavailable').length, eventsInStream: seen.size, lost: lost.length, wrongStatus: wrong.length, doubled: doubled.length })}\n`,
      );
      expect(lost.slice(0, 5)).toEqual([]);
      expect(wrong.slice(0, 5)).toEqual([]);
      expect(doubled.slice(0, 5)).toEqual([]);
      expect(dispatcher.output()).toMatch(/left in its outbox/);
    } finally {
      await consumer.close();
      await bus.close();
    }
  }, 240_000);
});
