/** Errors that quote huge input still fit in gRPC trailers, so the call and its connection survive. */
import { status } from '@grpc/grpc-js';
import { InProcessBus } from '@toolhub/bus';
import { MAX_ERROR_MESSAGE_CHARS } from '@toolhub/grpc-edge';

import { type RunningDispatcher, startDispatcher } from '../src';
import { connectClient, failure, type TestClient } from './support/grpc-client';

describe('the gRPC edge with a request that is echoed in its error', () => {
  let bus: InProcessBus;
  let running: RunningDispatcher;
  let client: TestClient;

  beforeAll(async () => {
    bus = new InProcessBus();
    running = await startDispatcher(bus, { grpc: { port: 0 }, dispatcher: { warmCoreTools: false } });
    client = connectClient(running.grpc.address);
  });

  afterAll(async () => {
    client.close();
    await running.close(100);
    await bus.close();
  });

  it('answers a 300 KB provider name with a short INVALID_ARGUMENT, and the connection keeps working', async () => {
    const err = await failure(client.getToolInfo({ provider: 'x'.repeat(300_000), name: 'file_read' }, { deadlineMs: 5000 }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS);
    expect(err.details).toMatch(/^Provider "x+ … \(\d+ more characters cut\)$/);
    expect(err.info?.message).toBe(err.details);
    await expect(client.listProviders({})).resolves.toEqual({ providers: [] });
  });
});
