/**
 * Progress through the dispatcher: a door that sets CallContext.onProgress gets the tool's updates
 * until the call ends, and stops listening on every way a call ends; a call without a listener
 * asks the adapter for nothing and subscribes to nothing.
 */
import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { textResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import type { Bus, Headers } from '@toolhub/bus';
import {
  ErrorInfo,
  GRPC_ERROR_TRAILER,
  HEADER_PROGRESS_SUBJECT,
  type RunProgress,
  RunStatus,
  type RunToolRequest,
  type RunToolStreamRequest,
  type RunToolStreamResponse,
  ToolHubError,
} from '@toolhub/contracts';
import type { CallContext } from '@toolhub/grpc-edge';
import { waitFor } from '@toolhub/test-harness';

import { type LocalStack, startLocalStack } from './support/local-stack';

let flaky = 0;
let releaseSlow: (() => void) | undefined;
let slowAborted = false;
const tools: ToolDefinition<never>[] = [
  {
    name: 'count_up',
    path: 'p',
    description: 'Reports progress 1..3 with a log line, then answers.',
    inputSchema: { type: 'object' },
    run: async (_a, ctx) => {
      for (let i = 1; i <= 3; i++) {
        ctx.progress?.({ progress: i, total: 3, message: `step ${i}` });
        await new Promise((r) => setTimeout(r, 120)); // past the coalescing interval: each step is its own update
      }
      ctx.log?.('finished');
      return textResult('counted');
    },
  },
  {
    name: 'fails_after_progress',
    path: 'p',
    description: 'Reports progress, then reports a tool error.',
    inputSchema: { type: 'object' },
    run: async (_a, ctx) => {
      ctx.progress?.({ progress: 1, message: 'trying' });
      return { content: [{ text: 'no' }], isError: true, errorMessage: 'it did not work' };
    },
  },
  {
    name: 'flaky_progress',
    path: 'p',
    description: 'Fails the first time (retry-safe), then reports progress and answers.',
    inputSchema: { type: 'object' },
    annotations: { readOnly: true },
    run: async (_a, ctx) => {
      ctx.progress?.({ progress: ++flaky, message: `attempt ${flaky}` });
      if (flaky === 1) throw ToolHubError.unavailable('backend hiccup');
      return textResult('second time lucky');
    },
  },
  {
    name: 'slow_progress',
    path: 'p',
    description: 'Reports progress, then waits to be released or aborted.',
    inputSchema: { type: 'object' },
    run: (_a, ctx) =>
      new Promise((resolve) => {
        ctx.progress?.({ progress: 1, message: 'waiting' });
        ctx.signal.addEventListener('abort', () => {
          slowAborted = true;
          resolve(textResult('aborted'));
        });
        releaseSlow = () => resolve(textResult('released'));
      }),
  },
];

const request = (name: string, timeoutMs = 10_000): RunToolRequest =>
  ({ provider: 'local', name, arguments: {}, timeoutMs, idempotencyKey: '', expectedVersion: '', caller: 'test', searchId: '' }) as RunToolRequest;

describe('progress through the run pipeline', () => {
  let stack: LocalStack;
  const requestHeaders: Headers[] = [];
  const subscribed: string[] = [];

  beforeAll(async () => {
    stack = await startLocalStack(tools, { warmCoreTools: false, retryBaseMs: 5 });
    // Watch what the dispatcher asks of the bus (the same bus object the dispatcher holds).
    const bus: Bus = stack.bus;
    const request = bus.request.bind(bus);
    const subscribe = bus.subscribe.bind(bus);
    bus.request = (subject, data, options) => {
      if (subject.endsWith('.run')) requestHeaders.push(options.headers ?? {});
      return request(subject, data, options);
    };
    bus.subscribe = (subject, handler, options) => {
      subscribed.push(subject);
      return subscribe(subject, handler, options);
    };
  });
  afterAll(() => stack.close());

  const runs = () => stack.running.dispatcher.runs;
  const listeners = () => stack.running.dispatcher.progressListeners;
  const call = (onProgress?: (p: RunProgress) => void, signal?: AbortSignal): CallContext => ({ deadline: Date.now() + 15_000, requestId: 'r', onProgress, signal });

  it('without a listener: no progress header on the run request and no progress subscription', async () => {
    requestHeaders.splice(0);
    const res = await runs().runTool(request('count_up'), call());
    expect(res.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(requestHeaders).toHaveLength(1);
    expect(requestHeaders[0]![HEADER_PROGRESS_SUBJECT]).toBeUndefined();
    expect(subscribed.filter((s) => s.includes('.progress.'))).toEqual([]);
  });

  it('with a listener: every update in order, then the result; the listener is removed', async () => {
    const seen: RunProgress[] = [];
    const res = await runs().runTool(request('count_up'), call((p) => seen.push(p)));
    expect(res.content).toEqual([{ text: 'counted' }]);
    // Delivered before the result, the last update included (no waiting after the call returned).
    expect(seen.map((p) => p.progress)).toEqual([1, 2, 3, undefined]); // an update carries what changed
    expect(seen[0]).toEqual({ progress: 1, total: 3, message: 'step 1' });
    expect(seen.at(-1)).toEqual({ log: 'finished' });
    expect(listeners()).toBe(0);
    expect(subscribed.filter((s) => s.includes('.progress.'))).toHaveLength(1); // one wildcard for every call
  });

  it('a tool error ends the listening too', async () => {
    const seen: RunProgress[] = [];
    const res = await runs().runTool(request('fails_after_progress'), call((p) => seen.push(p)));
    expect(res.status).toBe(RunStatus.RUN_STATUS_TOOL_ERROR);
    expect(listeners()).toBe(0);
  });

  it('a retried call listens per attempt: both attempts’ updates arrive, and nothing is left registered', async () => {
    const seen: RunProgress[] = [];
    const res = await runs().runTool(request('flaky_progress'), call((p) => seen.push(p)));
    expect(res.attempts).toBe(2);
    expect(seen.map((p) => p.message)).toEqual(['attempt 1', 'attempt 2']);
    expect(listeners()).toBe(0);
  });

  it('a timeout and a cancelled call end the listening', async () => {
    const timedOut = runs().runTool(request('slow_progress', 300), call(() => undefined));
    await expect(timedOut).rejects.toMatchObject({ code: 'timeout' });
    expect(listeners()).toBe(0);
    slowAborted = false;
    const caller = new AbortController();
    const seen: RunProgress[] = [];
    const cancelled = runs().runTool(request('slow_progress'), call((p) => seen.push(p), caller.signal));
    await waitFor(() => seen.length > 0);
    expect(listeners()).toBe(1);
    caller.abort();
    await expect(cancelled).rejects.toMatchObject({ code: 'unavailable' });
    expect(listeners()).toBe(0);
    await waitFor(() => slowAborted);
    releaseSlow?.();
  });

  it('a listener that throws does not fail the call', async () => {
    const res = await runs().runTool(request('count_up'), call(() => {
      throw new Error('listener bug');
    }));
    expect(res.content).toEqual([{ text: 'counted' }]);
  });
});

describe('RunToolStream over gRPC', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startLocalStack(tools, { warmCoreTools: false });
  });
  afterAll(() => stack.close());

  /** Every message of one RunToolStream call, and how it ended. */
  const stream = (req: Partial<RunToolStreamRequest>) =>
    new Promise<{ events: RunToolStreamResponse[]; error?: ServiceError & { info?: ErrorInfo } }>((resolve) => {
      const events: RunToolStreamResponse[] = [];
      const call = stack.client.raw.runToolStream(req as RunToolStreamRequest, new Metadata(), { deadline: new Date(Date.now() + 15_000) });
      call.on('data', (e: RunToolStreamResponse) => events.push(e));
      call.on('error', (error: ServiceError & { info?: ErrorInfo }) => {
        const bin = error.metadata?.get(GRPC_ERROR_TRAILER)[0];
        if (bin instanceof Buffer) error.info = ErrorInfo.decode(bin);
        resolve({ events, error });
      });
      call.on('end', () => resolve({ events }));
    });

  it('streams the tool’s progress updates, then the result, then ends OK', async () => {
    const { events, error } = await stream({ run: request('count_up') });
    expect(error).toBeUndefined();
    expect(events.slice(0, -1).map((e) => e.progress?.progress)).toEqual([1, 2, 3, undefined]);
    expect(events[0]!.progress).toEqual({ progress: 1, total: 3, message: 'step 1', log: '' });
    expect(events.at(-2)!.progress?.log).toBe('finished');
    expect(events.at(-1)!.result?.content).toEqual([{ text: 'counted' }]);
    expect(events.at(-1)!.result?.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(stack.running.dispatcher.progressListeners).toBe(0);
  });

  it('ends with RunTool’s status and error trailer when the call fails (unknown tool), and asks for `run` when it is missing', async () => {
    const missing = await stream({ run: request('no_such_tool') });
    expect(missing.error?.code).toBe(status.NOT_FOUND);
    expect(missing.error?.info?.message).toMatch(/no_such_tool/);
    const empty = await stream({});
    expect(empty.error?.code).toBe(status.INVALID_ARGUMENT);
    expect(empty.error?.info?.violations.map((v) => v.field)).toEqual(['run']);
    expect(stack.running.dispatcher.progressListeners).toBe(0);
  });
});
