/**
 * The `mcp` format through the official MCP SDK: an MCP Server serves the rendered meta-tools (and
 * runs calls through the agent kit against a ToolHub gRPC server); a real MCP Client lists and
 * calls them over an in-memory transport pair.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';

import { AgentToolkit, META_TOOLS, ToolHubAgentClient } from '../src';
import { type FakeServer, startFakeServer } from './support/fake-server';

describe('meta-tools over MCP', () => {
  let fake: FakeServer;
  let hub: ToolHubAgentClient;
  let kit: AgentToolkit;
  let client: Client;
  let server: Server;

  beforeAll(async () => {
    fake = await startFakeServer({
      searchTools: (req) => ({
        hits: [{ id: 'local:text_count', provider: 'local', name: 'text_count', path: 'text', summary: `Count words (${req.queries.join(', ')}).`, score: 3, queryIndexes: [0], matchedOn: '' }],
        suggestions: [],
        searchId: '',
        mode: 0,
        note: '',
      }),
    });
    hub = await ToolHubAgentClient.connect(fake.address);
    kit = await AgentToolkit.create(hub);
    server = new Server({ name: 'toolhub-agent-kit-test', version: '0.1.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: kit.tools('mcp').tools satisfies Tool[] }));
    server.setRequestHandler(CallToolRequestSchema, async (req) => {
      const result = await kit.execute({ name: req.params.name, arguments: req.params.arguments ?? {} });
      return { content: [{ type: 'text', text: result.content }], isError: result.isError };
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'test-client', version: '0.1.0' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  });

  afterAll(async () => {
    await client.close();
    await server.close();
    hub.close();
    await fake.close();
  });

  it('lists the meta-tools with their names, descriptions and schemas intact', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(META_TOOLS.map((t) => t.name));
    for (const [i, t] of tools.entries()) {
      expect(t.description).toBe(META_TOOLS[i]!.description);
      expect(t.inputSchema).toEqual(META_TOOLS[i]!.inputSchema);
    }
  });

  it('answers a tool_search call made through the MCP client', async () => {
    const res = await client.callTool({ name: 'tool_search', arguments: { queries: ['count words'] } });
    expect(res.isError).toBe(false);
    expect(res.content).toEqual([{ type: 'text', text: expect.stringContaining('local:text_count - Count words (count words).') }]);
  });
});
