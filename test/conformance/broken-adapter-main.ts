/** Serves the deliberately broken adapter on NATS_URL as provider PROVIDER (for the conformance tests). */
import { NatsBus } from '@toolhub/bus';

import { serveBrokenAdapter } from '../../libs/adapter-conformance/test/fixtures/broken-adapter';

void (async () => {
  const bus = await NatsBus.connect({ servers: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222' });
  const stop = await serveBrokenAdapter(bus, process.env['PROVIDER'] ?? 'broken');
  process.once('SIGTERM', () => void stop().then(() => bus.close()));
  process.stdout.write('broken adapter ready\n');
})();
