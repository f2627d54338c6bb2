/**
 * The MCP door's own CPU per call, without the dispatcher behind it: `McpDoor` over a backend that
 * answers `runTool` at once with the echo, driven by an MCP SDK client in a child process (its CPU
 * is not counted). For A/B of door changes (transport, body reading, SDK server), where the full
 * gateway bench's other processes drown a few µs.
 *
 *   node scripts/build.mjs bench/gateway door-alone.ts
 *   node dist/bench/gateway/door-alone.js <sse|http> [calls=20000] [concurrency=16]
 *
 * Prints the door process's user + system CPU per call over the measured calls (after 500 warm-up
 * calls) and the calls per second. The client calls `tool_run` on `mcp:everything_echo`.
 */
import { fork } from 'node:child_process';

const MESSAGE = 'x'.repeat(100);

async function client(transport: string, url: string, calls: number, concurrency: number): Promise<void> {
  // The SDK's HTTP+SSE client adds an abort listener per call (see protocol.ts): not worth a warning each.
  process.removeAllListeners('warning');
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const c = new Client({ name: 'door-alone', version: '1.0.0' });
  await c.connect(transport === 'sse' ? new SSEClientTransport(new URL('/sse', url)) : new StreamableHTTPClientTransport(new URL(url)));
  const call = async () => {
    const res = await c.callTool({ name: 'tool_run', arguments: { name: 'mcp:everything_echo', arguments: { message: MESSAGE } } });
    if (res.isError) throw new Error(JSON.stringify(res.content).slice(0, 200));
  };
  for (let i = 0; i < 500; i++) await call();
  process.send!('warm');
  await new Promise((r) => process.once('message', r));
  let left = calls;
  const worker = async () => {
    while (left-- > 0) await call();
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  process.send!('done');
  await c.close();
  process.exit(0);
}

async function door(transport: string, calls: number, concurrency: number): Promise<void> {
  if (transport !== 'sse' && transport !== 'http') throw new Error(`transport must be sse or http, not ${transport}`);
  const { McpDoor } = await import('@toolhub/mcp-door');
  const { RunStatus } = await import('@toolhub/contracts');
  const backend = {
    listTools: async () => ({ categories: [], tools: [], nextPageToken: '' }),
    getToolInfo: async () => ({}),
    searchTools: async () => ({ hits: [] }),
    getPreloadSet: async () => ({ tools: [] }),
    runTool: async (req: { arguments?: Record<string, unknown> }) => ({
      status: RunStatus.RUN_STATUS_OK,
      content: [{ text: `Echo: ${String(req.arguments?.['message'])}` }],
      fixes: [],
      attempts: 1,
      servedBy: 'mcp:everything_echo',
      latencyMs: 0,
    }),
    listProvidersFor: async () => ({ providers: [] }),
  };
  const d = await McpDoor.start(backend as never, { port: 0 });
  const child = fork(__filename, ['client', transport, d.address, String(calls), String(concurrency)], { execArgv: [] });
  await new Promise((r) => child.once('message', r));
  const start = process.cpuUsage();
  const t0 = performance.now();
  child.send('go');
  await new Promise((r) => child.once('message', r));
  const used = process.cpuUsage(start);
  const seconds = (performance.now() - t0) / 1000;
  process.stdout.write(`${transport} @${concurrency}: door ${((used.user + used.system) / calls).toFixed(1)} µs/call, ${Math.round(calls / seconds)} calls/s\n`);
  await d.close();
  process.exit(0);
}

const [role, ...rest] = process.argv.slice(2);
const run = role === 'client' ? client(rest[0]!, rest[1]!, Number(rest[2]), Number(rest[3])) : door(role ?? 'sse', Number(rest[0] ?? 20_000), Number(rest[1] ?? 16));
run.catch((err: unknown) => {
  process.stderr.write(`door-alone: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
