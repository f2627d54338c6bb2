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
