/**
 * The runs benchmark's adapter as its own process, on NATS_URL: provider `benchruns`, tool `sleep`
 * ({ms, value} → waits ms, answers {value}), standing in for a slow lookup. Built and run as
 * `node dist/bench/runs/runs-adapter.js`.
 */
import { serveAdapter, staticCatalog } from '@toolhub/adapter-sdk';
import { NatsBus } from '@toolhub/bus';
import { setTimeout as sleep } from 'node:timers/promises';

const SLEEP_PROVIDER = 'benchruns';

async function main(): Promise<void> {
  const bus = await NatsBus.connect({ servers: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222', name: 'bench-runs-adapter' });
  const service = await serveAdapter(bus, {
    provider: SLEEP_PROVIDER,
    ...staticCatalog(SLEEP_PROVIDER, [
      {
        name: 'sleep',
        path: 'bench',
        description: 'Waits `ms` milliseconds, then answers {value}.',
        inputSchema: { type: 'object', properties: { ms: { type: 'integer' }, value: {} }, required: ['ms'] },
        annotations: { readOnly: true, idempotent: true },
        run: async (a: { ms: number; value?: unknown }, ctx) => {
          await sleep(a.ms, undefined, { signal: ctx.signal });
          return { content: [{ text: JSON.stringify(a.value ?? null) }], structured: { value: a.value ?? null } };
        },
      },
    ]),
  });
  process.stdout.write(`runs adapter ready (${service.instanceId})\n`);
  const stop = async (): Promise<void> => {
    await service.close();
    await bus.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((err: unknown) => {
  process.stderr.write(`runs adapter failed: ${String(err)}\n`);
  process.exit(1);
});
