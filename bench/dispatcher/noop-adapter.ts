/**
 * The benchmark's no-op adapter as its own process (see noop-tool.ts), on NATS_URL. Built and run
 * by the benches as `node dist/bench/dispatcher/noop-adapter.js`.
 */
import { serveAdapter } from '@toolhub/adapter-sdk';
import { NatsBus } from '@toolhub/bus';

import { benchAdapter } from './noop-tool';

async function main(): Promise<void> {
  const bus = await NatsBus.connect({ servers: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222', name: 'bench-noop-adapter' });
  const service = await serveAdapter(bus, benchAdapter(), { announceOnStart: false });
  process.stdout.write(`noop adapter ready (${service.instanceId})\n`);
  const stop = async (): Promise<void> => {
    await service.close();
    await bus.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((err: unknown) => {
  process.stderr.write(`noop adapter failed: ${String(err)}\n`);
  process.exit(1);
});
