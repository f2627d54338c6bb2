/** Huge identifiers at the gRPC edge: refused or quoted back short, and the connection survives. */
import { status } from '@grpc/grpc-js';
import { InProcessBus } from '@toolhub/bus';
import { MAX_ERROR_MESSAGE_CHARS } from '@toolhub/contracts';

import { type RunningDispatcher, startDispatcher } from '../src';
import { connectClient, failure, type TestClient } from './support/grpc-client';

describe('the gRPC edge with huge identifiers', () => {
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

  it('refuses a megabyte idempotency key with INVALID_ARGUMENT before anything is routed', async () => {
    const err = await failure(client.runTool({ provider: 'local', name: 'math_calculate', arguments: { expression: '1' }, idempotencyKey: 'k'.repeat(1 << 20) }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toBe('idempotency_key is 1048576 characters long; the limit is 256. Send a UUID.');
    expect(err.info?.violations[0]?.field).toBe('idempotency_key');
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
