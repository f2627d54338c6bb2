/**
 * The one-process mode (`npm start`: apps/toolhub) as a user runs it: one Node process holding the
 * dispatcher, the registry (embedded store), adapter-local, adapter-mcp (server-everything over
 * stdio, from the default configuration) and adapter-cloud (the Petstore document of the default
 * configuration, pointed at Prism on a free port). Driven through its gRPC APIs; stopped with SIGTERM.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { RunStatus } from '@toolhub/contracts';
import { freePort, scratchDir, spawnProcess, type SpawnedProcess, waitFor } from '@toolhub/test-harness';

import { type AdminClient, adminClient, type AgentClient, childrenOf, connectAgent, EVERYTHING_ENTRY, isAlive, PETSTORE_DOCUMENT, PRISM_ENTRY, startApp, textOf } from './support/stack';

jest.setTimeout(60_000);

describe('ToolHub in one process', () => {
  let prism: SpawnedProcess;
  let toolhub: SpawnedProcess;
  let agent: AgentClient;
  let admin: AdminClient;
  let dataDir: string;

  beforeAll(async () => {
    const [grpcPort, adminPort, prismPort] = await Promise.all([freePort(), freePort(), freePort()]);
    dataDir = scratchDir('e2e-one-process');
    // The default cloud configuration calls the Petstore at PETSTORE_BASE_URL, allowlisting PETSTORE_HOST;
    // Prism serves the real-world document the default one is a copy of.
    prism = await spawnProcess(process.execPath, [PRISM_ENTRY, 'mock', '-h', '127.0.0.1', '-p', String(prismPort), PETSTORE_DOCUMENT], {
      readyPattern: /Prism is listening/,
      timeoutMs: 90_000,
    });
    toolhub = await startApp(
      'toolhub',
      {
        TOOLHUB_GRPC_PORT: String(grpcPort), TOOLHUB_MCP_PORT: '0', TOOLHUB_CONSOLE_PORT: '0',
        TOOLHUB_ADMIN_PORT: String(adminPort),
        TOOLHUB_DATA_DIR: dataDir,
        PETSTORE_BASE_URL: `http://127.0.0.1:${prismPort}`,
        PETSTORE_HOST: `127.0.0.1:${prismPort}`,
        LOG_LEVEL: 'warn',
      },
      /Press Ctrl-C to stop/,
      90_000,
    );
    agent = connectAgent(`127.0.0.1:${grpcPort}`);
    admin = adminClient(`127.0.0.1:${adminPort}`);
  }, 150_000);

  afterAll(async () => {
    agent?.close();
    admin?.close();
    await toolhub?.kill('SIGTERM');
    await prism?.kill('SIGTERM');
  });

  it('says what it runs and where, the console URL included, and serves the console there', async () => {
    const url = /console: {4}(http:\/\/127\.0\.0\.1:\d+\/)/.exec(toolhub.output())?.[1];
    expect(url).toBeDefined();
    const page = await fetch(url!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/assets/main.js');
    expect(toolhub.output()).toMatch(/providers: {2}local \(\d+ tools\), mcp \(\d+ tools from 1 MCP server\(s\)\), cloud \(3 tools from OpenAPI\)/);
  });

  it('lists the providers local, mcp and cloud', async () => {
    const res = await waitFor(async () => {
      const r = await agent.listTools({ provider: '' });
      return ['cloud', 'local', 'mcp'].every((p) => r.categories.some((c) => c.name === p)) ? r : undefined;
    }, { timeoutMs: 15_000, message: 'all three providers' });
    for (const c of res.categories) expect(c.toolCount).toBeGreaterThan(0);
    expect((await agent.listTools({ provider: 'mcp', path: 'demo/everything' })).tools.map((t) => t.name)).toContain('everything_echo');
  });

  it('runs an MCP tool, a cloud tool and a local tool', async () => {
    const echo = await agent.runTool({ provider: 'mcp', name: 'everything_echo', arguments: { message: 'one process' } });
    expect(echo.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(textOf(echo)).toBe('Echo: one process');

    const pets = await agent.runTool({ provider: 'cloud', name: 'petstore_list_pets', arguments: { limit: 1 } });
    expect(pets.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(Array.isArray(pets.structured)).toBe(true);

    const welcome = await agent.runTool({ provider: 'local', name: 'file_read', arguments: { path: 'welcome.txt' } });
    expect(textOf(welcome)).toContain('Welcome to ToolHub');
  });

  it('finds tools of all three providers with tool search, and keeps them in the registry catalog', async () => {
    const res = await agent.searchTools({ queries: ['echo back a message', 'list all pets', 'read a file'], limit: 10 });
    const providers = new Set(res.hits.map((h) => h.provider));
    expect([...providers].sort()).toEqual(expect.arrayContaining(['cloud', 'local', 'mcp']));
    expect(res.hits.map((h) => h.id)).toEqual(expect.arrayContaining(['mcp:everything_echo', 'cloud:petstore_list_pets', 'local:file_read']));
    for (const provider of ['local', 'mcp', 'cloud']) expect((await admin.listRegisteredTools(provider)).length).toBeGreaterThan(0);
  });

  it('offers MCP tasks on its door: a task-augmented tools/call runs as an async run and its result is fetched', async () => {
    const url = /MCP: +(http:\/\/\S+\/mcp)/.exec(toolhub.output())?.[1];
    expect(url).toBeDefined();
    const client = new Client({ name: 'e2e-one-process', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url!)));
    try {
      expect(client.getServerCapabilities()?.tasks?.requests?.tools?.call).toEqual({});
      const call = { name: 'tool_run', arguments: { name: 'mcp:everything_echo', arguments: { message: 'as a task' } } };
      const { task } = await client.request({ method: 'tools/call', params: { ...call, task: {} } }, CreateTaskResultSchema);
      expect(task.taskId).toMatch(/^run_/);
      const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      expect({ ...result, _meta: undefined }).toEqual({ ...(await client.callTool(call)), _meta: undefined });
      expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
    } finally {
      await client.close();
    }
  });

  it('exits cleanly on SIGTERM and leaves no server-everything process behind', async () => {
    const servers = childrenOf(toolhub.pid).filter((c) => c.args.includes(EVERYTHING_ENTRY));
    expect(servers).toHaveLength(1);
    const exit = await toolhub.kill('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    for (const s of servers) await waitFor(() => !isAlive(s.pid), { timeoutMs: 5000, message: `server-everything ${s.pid} to exit` });
    expect(toolhub.output()).not.toMatch(/shutdown step failed|shutdown timed out/);
  });
});
