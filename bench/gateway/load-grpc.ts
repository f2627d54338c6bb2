/**
 * Load generator for ToolHub (one-process and multi-process alike): the agent's side, the generated
 * `ToolHubClient` over @grpc/grpc-js, one channel shared by every concurrent call (as an agent
 * process would). Finds the echo tool of provider `mcp` with ListTools, then repeats RunTool.
 * Forked by gateway.bench.ts with GEN_ADDRESS=host:port; see protocol.ts.
 */
import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { type ListToolsResponse, RunStatus, type RunToolResponse, ToolHubClient } from '@toolhub/contracts';

import { MESSAGE, retry, serveGenerator } from './protocol';

const ADDRESS = process.env['GEN_ADDRESS'];
const PROVIDER = 'mcp';
const DEADLINE_MS = 30_000;

serveGenerator(async () => {
  if (!ADDRESS) throw new Error('GEN_ADDRESS is not set');
  const client = new ToolHubClient(ADDRESS, credentials.createInsecure());
  const listTools = () =>
    new Promise<ListToolsResponse>((ok, fail) =>
      client.listTools({ provider: PROVIDER, path: '', recursive: true, pageSize: 0, pageToken: '' }, new Metadata(), { deadline: Date.now() + 5000 }, (err: ServiceError | null, res: ListToolsResponse) =>
        err ? fail(err) : ok(res),
      ),
    );
  // The MCP server's `echo`, as ToolHub names it for agents (expected: everything_echo).
  const tool = await retry('ListTools(provider mcp) showing an echo tool', 90_000, async () => {
    const res = await listTools();
    const echo = res.tools.find((t) => /(^|_)echo$/.test(t.name));
    if (!echo) throw new Error(`no echo tool among ${res.tools.map((t) => t.name).join(', ') || 'none'}`);
    return echo;
  });
  const name = tool.name;
  const runTool = () =>
    new Promise<RunToolResponse>((ok, fail) =>
      client.runTool(
        { provider: PROVIDER, name, arguments: { message: MESSAGE }, timeoutMs: 0, idempotencyKey: '', expectedVersion: '', caller: '', searchId: '' },
        new Metadata(),
        { deadline: Date.now() + DEADLINE_MS },
        (err: ServiceError | null, res: RunToolResponse) => (err ? fail(err) : ok(res)),
      ),
    );
  const call = async (): Promise<void> => {
    const res = await runTool();
    if (res.status !== RunStatus.RUN_STATUS_OK) throw new Error(`RunTool ${name}: status ${res.status}: ${res.error?.message ?? ''}`);
    if (!res.content[0]?.text?.includes(MESSAGE)) throw new Error(`RunTool ${name}: the reply does not echo the message: ${JSON.stringify(res.content).slice(0, 200)}`);
  };
  await retry(`RunTool ${PROVIDER}/${name}`, 30_000, call);
  return {
    call,
    close: async () => client.close(),
    tool: `${PROVIDER}/${name}`,
    detail: `RunTool over gRPC to ${ADDRESS}; tool ${tool.id || `${PROVIDER}:${name}`} at path ${tool.path}`,
  };
});
