/** A call shed under overload: answered at once with RESOURCE_EXHAUSTED and recorded once, without the run's machinery. */
import { status } from '@grpc/grpc-js';
import { textResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import { RunStatus, type ToolCalled } from '@toolhub/contracts';
import { setupTestTracing, type TestTracing } from '@toolhub/telemetry/testing';

import { failure, type TestClient } from './support/grpc-client';
import { type LocalStack, startLocalStack } from './support/local-stack';

let release: () => void = () => undefined;
let started: () => void = () => undefined;
const tools: ToolDefinition<never>[] = [
  {
    name: 'hold_slot',
    path: 'text',
    description: 'Runs until the test lets it finish.',
    inputSchema: { type: 'object' },
    run: () =>
      new Promise((resolve) => {
        release = () => resolve(textResult('done'));
        started();
      }),
  },
];

describe('a dispatcher with every slot taken', () => {
  let tracing: TestTracing;
  let stack: LocalStack;
  let client: TestClient;
  const events: ToolCalled[] = [];

  beforeAll(async () => {
    tracing = setupTestTracing();
    stack = await startLocalStack(tools, { warmCoreTools: false, maxConcurrentRuns: 1, maxQueuedRuns: 0 });
    stack.running.dispatcher.callEvents.observe((e) => events.push(e));
    client = stack.client;
  });

  afterAll(async () => {
    await stack.close();
    await tracing.shutdown();
  });

  it('sheds the next call below grpc-js, with a retry hint, counted as shed but not as a tool call, without any span', async () => {
    const running1 = new Promise<void>((resolve) => (started = resolve));
    const held = client.runTool({ provider: 'local', name: 'hold_slot', caller: 'first' });
    await running1;
    tracing.reset();
    const err = await failure(client.runTool({ provider: 'local', name: 'hold_slot', caller: 'second' }));
    expect(err.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(err.info?.retryAfterMs).toBeGreaterThan(0);
    // Refused at the edge before the request was decoded: the tool is not known, so no tool.called
    // event; the dispatcher's shed count (metrics, GetStatus.shed_runs) has it.
    expect(events.filter((e) => e.caller.endsWith('second'))).toEqual([]);
    expect(stack.running.dispatcher.status().shedRuns).toBe(1);
    // Refused on the HTTP/2 stream before grpc-js (shedBeforeGrpc): no span at all, neither the
    // edge's nor a dispatcher.run span — under a burst, a refusal does no per-call work.
    expect(tracing.spans().map((s) => s.name)).toEqual([]);
    release();
    expect((await held).status).toBe(RunStatus.RUN_STATUS_OK);
    expect(events.map((e) => e.status)).toEqual(['ok']);
  });
});
