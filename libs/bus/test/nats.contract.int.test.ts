import { NatsBus, type NatsBusOptions } from '../src/index';
import { busContractSuite } from '../src/testing';
import { startNatsServer, type NatsServerHandle } from '@toolhub/test-harness';

// A private server (not NATS_URL): these tests restart and kill it.
let server: NatsServerHandle;

beforeAll(async () => {
  server = await startNatsServer();
});

afterAll(async () => {
  await server?.dispose();
});

const options = (): NatsBusOptions => ({ servers: server.url, name: 'bus-contract', connectTimeoutMs: 2000 });

busContractSuite('NatsBus', async () => {
  const bus = await NatsBus.connect(options());
  return { bus, peer: () => NatsBus.connect(options()), cleanup: () => bus.close() };
});

// The same contract with NATS.js's own request() and js.publish(): the bus's multiplexer must keep
// the library's semantics (headers, no responders, timeouts, de-duplication), upgrade after upgrade.
busContractSuite('NatsBus (NATS.js request and js.publish)', async () => {
  const own = (): NatsBusOptions => ({ ...options(), multiplexRequests: false });
  const bus = await NatsBus.connect(own());
  return { bus, peer: () => NatsBus.connect(own()), cleanup: () => bus.close() };
});
