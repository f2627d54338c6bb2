/** Errors that quote huge input still fit in gRPC trailers, so the call and its connection survive. */
import { status } from '@grpc/grpc-js';
import { InProcessBus } from '@toolhub/bus';
import { ToolHubError } from '@toolhub/contracts';

import { type RunningDispatcher, startDispatcher } from '../src';
import { boundedError, clip, MAX_ERROR_MESSAGE_CHARS } from '../src/error-bounds';
import { connectClient, failure, type TestClient } from './support/grpc-client';

describe('boundedError', () => {
  it('returns small errors unchanged', () => {
    const e = ToolHubError.notFound('No tool x.', ['file_read']);
    expect(boundedError(e)).toBe(e);
  });

  it('cuts long messages, details and lists, and says so', () => {
    const e = ToolHubError.invalidArgument(
      `Provider "${'x'.repeat(100_000)}" is invalid.`,
      Array.from({ length: 50 }, (_, i) => ({ field: `/a/${i}`, message: 'y'.repeat(10_000), example: '"z"' })),
    );
    const b = boundedError(e);
    expect(b.code).toBe('invalid_argument');
    expect(b.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS);
    expect(b.message).toMatch(/more characters cut\) \(30 more not shown\)$/);
    expect(b.violations).toHaveLength(20);
    expect(b.violations[0]).toMatchObject({ field: '/a/0', example: '"z"' });
    expect(b.violations[0]!.message.length).toBeLessThanOrEqual(300);
    expect(b.cause).toBe(e);
  });

  it('never splits a surrogate pair', () => {
    const cut = clip(`${'a'.repeat(9)}😀${'b'.repeat(100)}`, 50);
    expect(cut.length).toBeLessThanOrEqual(50);
    expect(() => encodeURIComponent(cut)).not.toThrow();
  });
});

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
