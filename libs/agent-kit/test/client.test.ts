import { type Metadata, status } from '@grpc/grpc-js';
import { type GetToolInfoRequest, HEADER_REQUEST_ID, MAX_PAGE_SIZE, PreloadFormat, type RunToolRequest, ToolHubError } from '@toolhub/contracts';
import { createServer, type Server as NetServer, connect as netConnect } from 'node:net';

import { AgentKitError, backoffDelay, hasAgentKitError, isToolHubCallError, ToolHubAgentClient, ToolHubCallError, withClientDefaults } from '../src';
import { channelOptionsOf } from '../src/client-options';
import { emptyListing, type FakeServer, okRun, startFakeServer, statusError } from './support/fake-server';

const fastRetry = { maxAttempts: 3, initialBackoffMs: 5, maxBackoffMs: 20, random: () => 0.5 };

async function failure(p: Promise<unknown>): Promise<ToolHubCallError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ToolHubCallError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('ToolHubAgentClient', () => {
  let fake: FakeServer;
  let client: ToolHubAgentClient;

  beforeEach(async () => {
    fake = await startFakeServer();
    client = await ToolHubAgentClient.connect(fake.address, { retry: fastRetry, caller: 'agent-7' });
  });

  afterEach(async () => {
    client.close();
    await fake.close();
  });

  it('fills unset request fields and returns the response', async () => {
    fake.handlers.listTools = () => ({ ...emptyListing, hint: 'hello' });
    await expect(client.listTools()).resolves.toEqual({ categories: [], tools: [], hint: 'hello', nextPageToken: '', total: 0 });
    // Asks for the largest pages and follows their tokens (see list-pages.test.ts).
    expect(fake.calls[0]?.request).toEqual({ provider: '', path: '', recursive: false, pageSize: MAX_PAGE_SIZE, pageToken: '' });
  });

  it('serves SearchTools and GetPreloadSet once the server implements them', async () => {
    fake.handlers.searchTools = (req) => ({ hits: [{ id: 'local:file_read', provider: 'local', name: 'file_read', path: 'file', summary: `for ${req.queries.join('+')}`, score: 1, queryIndexes: [0], matchedOn: '' }], suggestions: [], searchId: '', mode: 0, note: '' });
    fake.handlers.getPreloadSet = (req) => ({ tools: [], fingerprint: `f${req.format}`, rendered: '[]' });
    expect((await client.searchTools({ queries: ['read', 'file'], limit: 3 })).hits[0]?.summary).toBe('for read+file');
    expect((await client.getPreloadSet({ format: PreloadFormat.PRELOAD_FORMAT_MCP })).fingerprint).toBe(`f${PreloadFormat.PRELOAD_FORMAT_MCP}`);
  });

  it('retries UNAVAILABLE with one request id and one idempotency key, then succeeds', async () => {
    let n = 0;
    fake.handlers.runTool = () => {
      if (++n < 3) throw statusError(status.UNAVAILABLE, 'adapter restarting');
      return okRun('done');
    };
    const res = await client.runTool({ provider: 'local', name: 'echo_text', arguments: { text: 'x' } });
    expect(res.content).toEqual([{ text: 'done' }]);
    const runs = fake.calls.filter((c) => c.method === 'runTool');
    expect(runs).toHaveLength(3);
    const keys = new Set(runs.map((c) => (c.request as RunToolRequest).idempotencyKey));
    const ids = new Set(runs.map((c) => String((c.metadata as Metadata).get(HEADER_REQUEST_ID)[0])));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids.size).toBe(1);
    expect((runs[0]?.request as RunToolRequest).caller).toBe('agent-7');
  });

  it('gives up after maxAttempts and reports unavailable with the attempt count', async () => {
    fake.handlers.listTools = () => {
      throw statusError(status.UNAVAILABLE, 'no adapter');
    };
    const err = await failure(client.listTools({ provider: 'local' }));
    expect(err).toMatchObject({ code: 'unavailable', grpcStatus: status.UNAVAILABLE, attempts: 3, method: 'ListTools' });
    expect(err.message).toContain('after 3 attempts');
    expect(fake.calls).toHaveLength(3);
  });

  it('does not retry other failures and decodes the ErrorInfo trailer', async () => {
    fake.handlers.getToolInfo = (req: GetToolInfoRequest) => {
      throw ToolHubError.notFound(`Tool ${req.name} not found in local.`, ['echo_text'], 'text');
    };
    const err = await failure(client.getToolInfo({ provider: 'local', name: 'echo_txt' }));
    expect(err).toMatchObject({ code: 'not_found', grpcStatus: status.NOT_FOUND, attempts: 1 });
    expect(err.info).toMatchObject({ suggestions: ['echo_text'], parentPath: 'text' });
    expect(err.toToolHubError()).toMatchObject({ code: 'not_found', suggestions: ['echo_text'], parentPath: 'text' });
    expect(isToolHubCallError(err, 'not_found')).toBe(true);
    expect(fake.calls).toHaveLength(1);
  });

  it('fails a slow call at its deadline with a timeout that says what to change', async () => {
    fake.handlers.listTools = () => new Promise((r) => setTimeout(() => r(emptyListing), 1000));
    const started = Date.now();
    const err = await failure(client.listTools({}, { deadlineMs: 100 }));
    expect(Date.now() - started).toBeLessThan(800);
    expect(err).toMatchObject({ code: 'timeout', grpcStatus: status.DEADLINE_EXCEEDED });
    expect(err.message).toContain('100 ms deadline');
  });

  it('derives the RunTool deadline from timeout_ms plus the slack', async () => {
    const quick = await ToolHubAgentClient.connect(fake.address, { runDeadlineSlackMs: 50, runDeadlineMs: 30_000 });
    fake.handlers.runTool = () => new Promise((r) => setTimeout(() => r(okRun('late')), 1000));
    const started = Date.now();
    const err = await failure(quick.runTool({ provider: 'local', name: 'slow', timeoutMs: 100 }));
    quick.close();
    expect(err.code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(800);
  });

  it('cancels a call when its signal aborts', async () => {
    fake.handlers.listTools = () => new Promise((r) => setTimeout(() => r(emptyListing), 1000));
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const err = await failure(client.listTools({}, { signal: ac.signal }));
    expect(err.grpcStatus).toBe(status.CANCELLED);
  });

  it('multiplexes concurrent calls over one reused connection', async () => {
    let connections = 0;
    const proxy: NetServer = createServer((socket) => {
      connections++;
      const upstream = netConnect(Number(fake.address.split(':')[1]), '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const viaProxy = await ToolHubAgentClient.connect(`127.0.0.1:${(proxy.address() as { port: number }).port}`);
    fake.handlers.listTools = () => emptyListing;
    await Promise.all(Array.from({ length: 20 }, () => viaProxy.listTools()));
    await viaProxy.listTools();
    viaProxy.close();
    await new Promise<void>((r) => proxy.close(() => r()));
    expect(connections).toBe(1);
  });

  it('refuses calls after close()', async () => {
    client.close();
    await expect(client.listTools()).rejects.toBeInstanceOf(AgentKitError);
    await client.listTools().catch((err: unknown) => expect(hasAgentKitError(err, 'closed')).toBe(true));
  });
});

describe('ToolHubAgentClient without a server', () => {
  it('retries a refused connection, then fails with unavailable', async () => {
    const client = await ToolHubAgentClient.connect(`127.0.0.1:${await freePort()}`, { retry: { maxAttempts: 2, initialBackoffMs: 5, maxBackoffMs: 5 } });
    const err = await failure(client.listProviders());
    client.close();
    expect(err).toMatchObject({ code: 'unavailable', attempts: 2 });
  });

  it('fails connect() when waitForReadyMs passes without a server', async () => {
    const err = await failure(ToolHubAgentClient.connect(`127.0.0.1:${await freePort()}`, { waitForReadyMs: 200 }));
    expect(err).toMatchObject({ code: 'unavailable', method: 'connect' });
  });
});

describe('client options', () => {
  it('names the field of a bad option', () => {
    expect(() => withClientDefaults({ deadlineMs: 0 })).toThrow(/deadlineMs must be a positive integer/);
    expect(() => withClientDefaults({ retry: { maxAttempts: 0 } })).toThrow(/retry.maxAttempts/);
    expect(() => withClientDefaults({ retry: { initialBackoffMs: 500, maxBackoffMs: 100 } })).toThrow(/retry.maxBackoffMs/);
  });

  it('turns keep-alive on for the channel by default', () => {
    expect(channelOptionsOf(withClientDefaults())).toMatchObject({
      'grpc.keepalive_time_ms': 60_000,
      'grpc.keepalive_timeout_ms': 20_000,
      'grpc.keepalive_permit_without_calls': 1,
    });
  });

  it('draws backoff with full jitter under a growing, capped ceiling', () => {
    const o = withClientDefaults({ retry: { initialBackoffMs: 100, maxBackoffMs: 1000, multiplier: 2, random: () => 0.999 } }).retry;
    expect([1, 2, 3, 4, 5].map((r) => backoffDelay(r, o))).toEqual([99, 199, 399, 799, 999]);
    expect(backoffDelay(3, { ...o, random: () => 0 })).toBe(0);
  });
});
