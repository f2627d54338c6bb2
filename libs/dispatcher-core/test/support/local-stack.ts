/** The stack most dispatcher tests share: the in-process bus, a `local` adapter, a dispatcher on a free port and a client. */
import { type AdapterService, serveAdapter, staticCatalog, type ToolDefinition } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';

import { type DispatcherOptions, type RunningDispatcher, startDispatcher } from '../../src';
import { connectClient, type TestClient } from './grpc-client';

export interface LocalStack {
  bus: InProcessBus;
  adapter: AdapterService;
  running: RunningDispatcher;
  client: TestClient;
  /** Closes the client, the dispatcher (100 ms grace), the adapter (again is fine) and the bus. */
  close(): Promise<void>;
}

export async function startLocalStack(tools: ToolDefinition<never>[], dispatcher: DispatcherOptions = {}): Promise<LocalStack> {
  const bus = new InProcessBus();
  const adapter = await serveAdapter(bus, { provider: 'local', ...staticCatalog('local', tools) });
  const running = await startDispatcher(bus, { grpc: { port: 0 }, dispatcher });
  const client = connectClient(running.grpc.address);
  return {
    bus,
    adapter,
    running,
    client,
    async close() {
      client.close();
      await running.close(100);
      await adapter.close();
      await bus.close();
    },
  };
}
