/** Identifier fields of RunTool are bounded at the edge. */
import { status } from '@grpc/grpc-js';
import { InProcessBus } from '@toolhub/bus';

import { type RunningDispatcher, startDispatcher } from '../src';
import { checkRunStrings } from '../src/arguments';
import { connectClient, failure, type TestClient } from './support/grpc-client';

describe('checkRunStrings', () => {
  const ok = { idempotencyKey: '', caller: '', expectedVersion: '' };

  it('accepts identifiers up to 256 characters', () => {
    expect(() => checkRunStrings({ ...ok, idempotencyKey: 'k'.repeat(256), caller: 'agent-7', expectedVersion: 'v1' })).not.toThrow();
  });

  it.each(['idempotencyKey', 'caller', 'expectedVersion'] as const)('refuses a %s of 257 characters, naming the field', (key) => {
    expect(() => checkRunStrings({ ...ok, [key]: 'x'.repeat(257) })).toThrow(/ is 257 characters long; the limit is 256/);
  });
});

describe('RunTool with a megabyte idempotency key', () => {
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

  it('is refused with INVALID_ARGUMENT before anything is routed', async () => {
    const err = await failure(client.runTool({ provider: 'local', name: 'math_calculate', arguments: { expression: '1' }, idempotencyKey: 'k'.repeat(1 << 20) }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toBe('idempotency_key is 1048576 characters long; the limit is 256. Send a UUID.');
    expect(err.info?.violations[0]?.field).toBe('idempotency_key');
  });
});
