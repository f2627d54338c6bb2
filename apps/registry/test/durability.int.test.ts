/**
 * No event lost, none double-counted: the registry is killed with SIGKILL while 10,000
 * `tool.called` events are being published (every other 250 of them in batch messages of 10, as
 * dispatchers send them); RunTool keeps working while it is down; after a
 * restart the statistics count exactly every call.
 */
import { credentials, Metadata } from '@grpc/grpc-js';
import { serveAdapter, staticCatalog, textResult } from '@toolhub/adapter-sdk';
import { NatsBus } from '@toolhub/bus';
import { eventSubject, RegistryAdminClient, RunStatus, ToolCalled, toolCalledMessage } from '@toolhub/contracts';
import { startDispatcher } from '@toolhub/dispatcher-core';
import { freePort, mongoUrl, spawnProcess, type SpawnedProcess, startNatsServer } from '@toolhub/test-harness';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

import { connectClient } from '../../../libs/dispatcher-core/test/support/grpc-client';

const ROOT = join(__dirname, '../../..');
const EVENTS = 10_000;

describe('registry durability under SIGKILL', () => {
  it('counts exactly 10,000 published calls plus the runs made while it was down', async () => {
    // A private nats-server, even when NATS_URL names a shared one: the 10,000 events stay out of
    // the shared events stream, which every later test's new registry consumer would otherwise replay.
    const natsServer = await startNatsServer();
    const nats = natsServer.url;
    const mongo = await mongoUrl();
    const run = randomUUID().slice(0, 8);
    const tool = `t_${run}`;
    const adminPort = await freePort();
    const env = { NATS_URL: nats, MONGO_URL: mongo, TOOLHUB_MONGO_DB: `durability_${run}`, TOOLHUB_CONSOLE_PORT: '0', TOOLHUB_ADMIN_PORT: String(adminPort), TOOLHUB_STATS_CONSUMER: `stats_${run}`, LOG_LEVEL: 'info' };
    const startRegistry = () =>
      spawnProcess(process.execPath, ['--import', 'tsx', 'apps/registry/src/main.ts'], { cwd: ROOT, env, readyPattern: /registry ready/, timeoutMs: 60_000 });

    const bus = await NatsBus.connect({ servers: nats, name: 'durability-test' });
    const adapter = await serveAdapter(bus, {
      provider: 'durable',
      ...staticCatalog('durable', [{ name: tool, path: 'x', description: 'Answers ok.', inputSchema: { type: 'object' }, run: async () => textResult('ok') }]),
    });
    const dispatcher = await startDispatcher(bus, { grpc: { port: 0 }, dispatcher: { warmCoreTools: false } });
    const agent = connectClient(dispatcher.grpc.address);
    const admin = new RegistryAdminClient(`127.0.0.1:${adminPort}`, credentials.createInsecure());
    let registry: SpawnedProcess | undefined;
    try {
      registry = await startRegistry();
      const publish = async (from: number, to: number) => {
        for (let i = from; i < to; i += 250) {
          const events = Array.from({ length: Math.min(250, to - i) }, (_, k): ToolCalled => ({ eventId: `${run}-${i + k}`, toolId: `durable:${tool}`, provider: 'durable', name: tool, status: 'ok', errorCode: 0, latencyMs: (i + k) % 50, attempts: 1, fallbackUsed: '', caller: 'bench', timestampUnixMs: Date.now(), searchId: '', claimGroup: '' }));
          if ((i / 250) % 2 === 0) {
            await Promise.all(events.map((e) => bus.publishEvent(eventSubject('tool.called', 'durable'), ToolCalled.encode(e).finish(), { msgId: e.eventId })));
          } else {
            const messages = [];
            for (let j = 0; j < events.length; j += 10) messages.push(toolCalledMessage('durable', events.slice(j, j + 10).map((e) => ({ eventId: e.eventId, data: ToolCalled.encode(e).finish() }))));
            await Promise.all(messages.map((m) => bus.publishEvent(m.subject, m.data, { msgId: m.msgId })));
          }
        }
      };
      await publish(0, 3000);
      await registry.kill('SIGKILL'); // mid-stream: some batches written, some not acknowledged
      registry = undefined;
      const publishing = publish(3000, EVENTS);
      // The registry is down: agents' runs keep working, their events wait in JetStream.
      const runs = 20;
      for (let i = 0; i < runs; i++) {
        const res = await agent.runTool({ provider: 'durable', name: tool, caller: 'agent' });
        expect(res.status).toBe(RunStatus.RUN_STATUS_OK);
      }
      await publishing;
      registry = await startRegistry();

      const calls = async (): Promise<number> =>
        new Promise((resolve) =>
          admin.getToolStats({ toolId: `durable:${tool}` }, new Metadata(), { deadline: Date.now() + 5000 }, (err, res) => resolve(err ? -1 : Number(res.stats?.calls ?? -1))),
        );
      const end = Date.now() + 90_000;
      let seen = -1;
      while (Date.now() < end && seen < EVENTS + runs) {
        await new Promise((r) => setTimeout(r, 250));
        seen = await calls();
      }
      expect(seen).toBe(EVENTS + runs);
      // Give redeliveries a chance to show up as double counts: there must be none.
      await new Promise((r) => setTimeout(r, 1500));
      expect(await calls()).toBe(EVENTS + runs);
    } finally {
      admin.close();
      agent.close();
      await registry?.kill('SIGTERM');
      await dispatcher.close(100);
      await adapter.close();
      await bus.close();
      await natsServer.dispose();
    }
  }, 180_000);
});
