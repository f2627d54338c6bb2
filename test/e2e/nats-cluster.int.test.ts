/**
 * Scale-out on real engines: a three-node NATS cluster on loopback (the events stream with three
 * replicas), two dispatcher processes and adapter-local, all given every node's URL. Under RunTool
 * load through both dispatchers, the node leading the events stream is SIGKILLed, then one
 * dispatcher is SIGKILLed and started again on its outbox. Every call either dispatcher answered
 * must be in the stream exactly once afterwards.
 */
import { status } from '@grpc/grpc-js';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { NatsBus } from '@toolhub/bus';
import { decodeToolCalledMessage, EVENTS_STREAM, GRPC_ERROR_TRAILER, RunStatus, TOOL_CALLED_FILTERS } from '@toolhub/contracts';
import { freePort, type NatsClusterHandle, scratchDir, spawnProcess, type SpawnedProcess, startNatsCluster, waitFor } from '@toolhub/test-harness';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { type CallError, connectClient, type TestClient } from '../../libs/dispatcher-core/test/support/grpc-client';

const ROOT = join(__dirname, '../..');
const TS_NODE = ['--import', 'tsx'];

describe('three-node NATS cluster and two dispatchers: a node and a dispatcher killed under load', () => {
  let cluster: NatsClusterHandle;
  let adapter: SpawnedProcess | undefined;
  const dispatchers: Array<{ proc: SpawnedProcess; port: number; outbox: string; client: TestClient }> = [];
  const root = scratchDir('cluster-root');

  const startDispatcher = (port: number, outbox: string): Promise<SpawnedProcess> =>
    spawnProcess(process.execPath, [...TS_NODE, 'apps/dispatcher/src/main.ts'], {
      cwd: ROOT,
      env: { NATS_URL: cluster.urls, TOOLHUB_GRPC_PORT: String(port), TOOLHUB_MCP_PORT: '0', TOOLHUB_OUTBOX_DIR: outbox, TOOLHUB_PROVIDER_TTL: '3s', LOG_LEVEL: 'info' },
      readyPattern: /dispatcher listening/,
      timeoutMs: 90_000,
    });

  beforeAll(async () => {
    cluster = await startNatsCluster(3);
    // The events stream with three replicas, created before any app (apps never narrow it).
    await waitFor(
      async () => {
        const bus = await NatsBus.connect({ servers: cluster.urls.split(','), name: 'cluster-setup', streamReplicas: 3 }).catch(() => undefined);
        await bus?.close();
        return bus !== undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, message: 'JetStream in the cluster to create the R3 events stream' },
    );
    writeFileSync(join(root, 'notes.txt'), 'hello\n');
    adapter = await spawnProcess(process.execPath, [...TS_NODE, 'apps/adapter-local/src/main.ts'], {
      cwd: ROOT,
      env: { NATS_URL: cluster.urls, TOOLHUB_LOCAL_ROOT: root, TOOLHUB_HEARTBEAT_INTERVAL: '1s' },
      readyPattern: /adapter-local ready/,
      timeoutMs: 90_000,
    });
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const outbox = scratchDir(`cluster-outbox-${i}`);
      const proc = await startDispatcher(port, outbox);
      dispatchers.push({ proc, port, outbox, client: connectClient(`127.0.0.1:${port}`) });
    }
    for (const d of dispatchers) {
      await waitFor(async () => (await d.client.listProviders({})).providers.some((p) => p.provider === 'local'), { timeoutMs: 30_000, message: 'adapter-local to be seen' });
    }
  }, 240_000);

  afterAll(async () => {
    for (const d of dispatchers) d.client.close();
    await Promise.all([...dispatchers.map((d) => d.proc.kill('SIGTERM')), adapter?.kill('SIGTERM')]);
    await cluster?.dispose();
  });

  it('loses no event of an answered call', async () => {
    const answered: string[] = [];
    const failures: Record<string, number> = {};
    let sent = 0;
    let stop = false;
    const worker = async (w: number): Promise<void> => {
      while (!stop) {
        const d = dispatchers[w % 2]!;
        const caller = `k${sent++}`;
        try {
          const res = await d.client.runTool({ provider: 'local', name: 'math_calculate', arguments: { expression: '1 + 1' }, caller }, { deadlineMs: 10_000 });
          if (res.status === RunStatus.RUN_STATUS_OK) answered.push(caller);
        } catch (err) {
          const e = err as CallError;
          failures[status[e.code] ?? String(e.code)] = (failures[status[e.code] ?? String(e.code)] ?? 0) + 1;
          // Answered by ToolHub (an error with its trailer): that call has an event too.
          if (e.metadata?.get(GRPC_ERROR_TRAILER).length) answered.push(caller);
          else await new Promise((r) => setTimeout(r, 50)); // the dispatcher is down: do not spin
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    await waitFor(() => answered.length >= 200, { timeoutMs: 60_000, message: '200 calls before the faults' });

    // Kill the node that leads the events stream: JetStream must elect another and keep every event.
    const nc = await connect({ servers: cluster.urls.split(',') });
    const leader = (await (await jetstreamManager(nc)).streams.info(EVENTS_STREAM)).cluster?.leader ?? 'n0';
    await nc.close();
    const victim = cluster.nodes[cluster.names.indexOf(leader)] ?? cluster.nodes[0]!;
    await victim.kill();
    const atNodeKill = answered.length;
    await waitFor(() => answered.length >= atNodeKill + 200, { timeoutMs: 60_000, message: '200 calls after the node died' });

    const d0 = dispatchers[0]!;
    await d0.proc.kill('SIGKILL');
    const atDispatcherKill = answered.length;
    await waitFor(() => answered.length >= atDispatcherKill + 100, { timeoutMs: 60_000, message: 'the other dispatcher to keep answering' });
    d0.proc = await startDispatcher(d0.port, d0.outbox);
    await victim.restart();
    await waitFor(() => answered.length >= atDispatcherKill + 300, { timeoutMs: 60_000, message: 'calls after the restarts' });
    stop = true;
    await Promise.all(workers);

    const bus = await NatsBus.connect({ servers: cluster.urls.split(','), name: 'cluster-audit', ensureStream: false });
    const seen = new Map<string, Set<string>>();
    const consumer = await bus.consumeEvents({
      durable: 'cluster-audit',
      filterSubjects: [...TOOL_CALLED_FILTERS],
      handler: async (batch) => {
        for (const e of batch.flatMap((m) => decodeToolCalledMessage(m.subject, m.data))) {
          seen.set(e.caller, (seen.get(e.caller) ?? new Set()).add(e.eventId));
        }
      },
    });
    try {
      await waitFor(() => answered.every((c) => seen.has(c)), { timeoutMs: 90_000, intervalMs: 250, message: 'every answered call in the stream' }).catch(() => undefined);
      const lost = answered.filter((c) => !seen.has(c));
      const doubled = [...seen.entries()].filter(([, ids]) => ids.size > 1).map(([c]) => c);
      process.stdout.write(`nats-cluster report: ${JSON.stringify({ sent, answered: answered.length, failures, killedNode: leader, eventsInStream: seen.size, lost: lost.length, doubled: doubled.length })}\n`);
      expect(lost.slice(0, 5)).toEqual([]);
      expect(doubled.slice(0, 5)).toEqual([]);
    } finally {
      await consumer.close();
      await bus.close();
    }
  }, 360_000);
});
