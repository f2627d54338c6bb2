import { serveAdapter, staticCatalog, textResult, toolError, type AdapterService, type ToolDefinition } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { RunStatus, ToolHubError } from '@toolhub/contracts';
import { type RunningDispatcher, startDispatcher } from '@toolhub/dispatcher-core';

import { AgentToolkit, META_TOOLS, ToolHubAgentClient } from '../src';
import { type FakeServer, startFakeServer } from './support/fake-server';

const tools: ToolDefinition<never>[] = [
  {
    name: 'echo_text',
    path: 'text',
    description: 'Echoes text back. Use it to test the wiring.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    importance: 'low',
    annotations: { readOnly: true },
    examples: [{ description: 'echo', arguments: { text: 'hi' }, result: 'hi' }],
    run: async (a: { text: string }) => textResult(a.text),
  },
  {
    name: 'repeat_text',
    path: 'text',
    description: 'Repeats text a number of times.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' }, times: { type: 'integer', minimum: 1 } }, required: ['text', 'times'], additionalProperties: false },
    run: async (a: { text: string; times?: number }) => {
      // This dispatcher has no schema validator plugged in, so the tool checks (as adapters must anyway).
      if (a.times === undefined) throw ToolHubError.invalidArgument('times is required.', [{ field: '/times', message: 'required', expected: 'integer >= 1', example: '2' }]);
      return textResult(a.text.repeat(a.times));
    },
  },
  { name: 'always_fails', path: 'text', description: 'Reports a failure.', inputSchema: { type: 'object', properties: {} }, run: async () => toolError('the disk is full; free space and retry') },
  { name: 'clock_now', path: 'time', description: 'The current time.', inputSchema: { type: 'object', properties: {} }, run: async () => textResult('12:00') },
];

describe('executing model tool calls against a running dispatcher', () => {
  let bus: InProcessBus;
  let adapter: AdapterService;
  let running: RunningDispatcher;
  let client: ToolHubAgentClient;
  let kit: AgentToolkit;

  beforeAll(async () => {
    bus = new InProcessBus();
    adapter = await serveAdapter(bus, { provider: 'local', ...staticCatalog('local', tools) });
    running = await startDispatcher(bus, { grpc: { port: 0 } });
    client = await ToolHubAgentClient.connect(running.grpc.address);
    kit = await AgentToolkit.create(client);
  });

  afterAll(async () => {
    client.close();
    await running.close(100);
    await adapter.close();
    await bus.close();
  });

  it('starts with the meta-tools only when the server has no registry for the preload set', () => {
    expect(kit.tools('openai-chat').tools.map((t) => t.function.name)).toEqual(['tool_list', 'tool_info', 'tool_run', 'tool_search']);
    expect(kit.preloadError?.code).toBe('unavailable');
  });

  it('lists providers, then categories and tools as short lines', async () => {
    expect(await kit.execute({ name: 'tool_list', arguments: '{}' })).toEqual({ content: expect.stringMatching(/^providers: local\/ \(4\)/), isError: false });
    const text = (await kit.execute({ name: 'tool_list', arguments: { provider: 'local', path: 'text' } })).content;
    expect(text).toContain('local:echo_text - Echoes text back. [text]');
    expect(text).toMatch(/\nnext: Call tool_info/);
  });

  it('shows tool info compactly and exposes the tool for direct calls', async () => {
    const res = await kit.execute({ name: 'tool_info', arguments: { name: 'local:echo_text' } });
    expect(res.isError).toBe(false);
    expect(res.content.split('\n')).toEqual([
      'local:echo_text [text] (read-only)',
      'Echoes text back. Use it to test the wiring.',
      'input: {"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}',
      'example: {"text":"hi"} -> hi',
      'call: local__echo_text directly, or tool_run {"provider":"local","name":"echo_text","arguments":{...}}',
    ]);
    expect(kit.tools('anthropic').tools.map((t) => t.name).at(-1)).toBe('local__echo_text');
  });

  it('runs a discovered tool called by its exposed name with JSON-text arguments', async () => {
    await expect(kit.execute({ name: 'local__echo_text', arguments: '{"text":"hello"}' })).resolves.toEqual({ content: 'hello', isError: false });
  });

  it('runs a tool through tool_run with provider and name', async () => {
    await expect(kit.execute({ name: 'tool_run', arguments: { provider: 'local', name: 'repeat_text', arguments: { text: 'ab', times: 2 } } })).resolves.toEqual({ content: 'abab', isError: false });
  });

  it('reports a tool that ran and failed, with its own message', async () => {
    const res = await kit.execute({ name: 'tool_run', arguments: { name: 'local:always_fails', arguments: {} } });
    expect(res.isError).toBe(true);
    expect(res.content).toContain('error (the tool reported a failure): the disk is full; free space and retry');
  });

  it('says what was wrong with the arguments and how to fix them', async () => {
    const res = await kit.execute({ name: 'tool_run', arguments: { provider: 'local', name: 'repeat_text', arguments: { text: 'ab' } } });
    expect(res.isError).toBe(true);
    expect(res.content).toMatch(/^error invalid_argument: /);
    // The dispatcher checks the arguments against the tool's schema; every field's problem reaches the model.
    expect(res.content).toMatch(/\nfield \/times: [^\n]*required[^\n]*; expected integer >= 1; e\.g\. \d/);
    expect(res.content).toContain('Check the arguments against tool_info');
  });

  it('answers a misspelt tool with close names and the nearest category', async () => {
    const res = await kit.execute({ name: 'tool_info', arguments: { provider: 'local', name: 'echo_txt' } });
    expect(res.isError).toBe(true);
    expect(res.content).toMatch(/^error not_found: /);
    expect(res.content).toContain('Did you mean "echo_text"?');
    expect(res.content).toContain('path="text"');
  });

  it('explains malformed calls before sending anything', async () => {
    expect((await kit.execute({ name: 'tool_info', arguments: '{"name": ' })).content).toMatch(/^error invalid_argument: tool_info: the arguments are not valid JSON/);
    expect((await kit.execute({ name: 'tool_info', arguments: { name: 'echo_text' } })).content).toContain('needs "provider" and "name"');
    expect((await kit.execute({ name: 'tool_run', arguments: { name: 'local:echo_text', arguments: [1] } })).content).toContain('"arguments" must be a JSON object');
    expect((await kit.execute({ name: 'tool_search', arguments: { queries: [] } })).content).toContain('"queries" must be a list of 1 to 5');
  });

  it('answers an unknown function name with the functions there are', async () => {
    const res = await kit.execute({ name: 'read_file', arguments: {} });
    expect(res).toEqual({ content: expect.stringContaining('there is no function "read_file". Functions: tool_list, tool_info, tool_run, tool_search'), isError: true });
  });

  it('points to tool_list while search is not available', async () => {
    const res = await kit.execute({ name: 'tool_search', arguments: { queries: ['time'] } });
    expect(res.isError).toBe(true);
    expect(res.content).toMatch(/^error unavailable: .*tool_list/);
  });
});

describe('executing against a server with search and a preload set', () => {
  let fake: FakeServer;
  let client: ToolHubAgentClient;

  beforeAll(async () => {
    fake = await startFakeServer({
      searchTools: (req) =>
        req.queries.includes('nothing')
          ? { hits: [], suggestions: ['clock_now'], searchId: '', mode: 0, note: '' }
          : {
              hits: [
                { id: 'local:clock_now', provider: 'local', name: 'clock_now', path: 'time', summary: 'The current time in any IANA zone.\nMore text.', score: 2, queryIndexes: [0], matchedOn: '' },
                { id: 'web:time_lookup', provider: 'web', name: 'time_lookup', path: '', summary: 'Looks up times.', score: 1, queryIndexes: [1], matchedOn: '' },
              ],
              suggestions: [],
              searchId: '',
              mode: 0,
              note: '',
            },
      getToolInfo: (req) => {
        throw ToolHubError.notFound(`No tool ${req.name}.`, ['clock_now'], 'time');
      },
      runTool: (req) => ({
        status: RunStatus.RUN_STATUS_OK,
        content: [{ text: 'x'.repeat(req.name === 'big' ? 500 : 3) }, { json: { b: 1, a: [2] } }, { image: { mimeType: 'image/png', data: Buffer.alloc(10) } }],
        fixes: [{ field: '/count', description: 'string "3" → number 3' }],
        attempts: 1,
        servedBy: 'backup:clock_now',
        latencyMs: 4,
      }),
      getPreloadSet: () => ({
        // As the registry sends it: the meta-tools first (provider toolhub), then the operator's tools.
        tools: [
          ...META_TOOLS.map((t) => ({ id: `toolhub:${t.name}`, provider: 'toolhub', name: t.name, description: t.description, inputSchema: t.inputSchema, version: 'm' })),
          { id: 'local:file_read', provider: 'local', name: 'file_read', description: 'Read a text file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } }, version: 'v1' },
        ],
        fingerprint: 'abc',
        rendered: '',
      }),
    });
    client = await ToolHubAgentClient.connect(fake.address);
  });

  afterAll(async () => {
    client.close();
    await fake.close();
  });

  it('puts the server preload set after the meta-tools, without listing the meta-tools twice', async () => {
    const kit = await AgentToolkit.create(client);
    expect(kit.prefix('mcp').tools.map((t) => t.name)).toEqual(['tool_list', 'tool_info', 'tool_run', 'tool_search', 'local__file_read']);
  });

  it('lists search hits one per line with the next step', async () => {
    const kit = await AgentToolkit.create(client);
    const res = await kit.execute({ name: 'tool_search', arguments: { queries: ['time tokyo', 'clock'], limit: 100 } });
    expect(res.content).toBe(
      ['local:clock_now - The current time in any IANA zone. More text. [time]', 'web:time_lookup - Looks up times.', 'next: tool_info {"name":"<id>"} for the schema of the best match'].join('\n'),
    );
    expect(fake.calls.at(-1)?.request).toMatchObject({ queries: ['time tokyo', 'clock'], limit: 25 });
  });

  it('answers not_found with close names and the nearest category when the message has neither', async () => {
    const kit = await AgentToolkit.create(client, { preload: [] });
    const res = await kit.execute({ name: 'tool_info', arguments: { provider: 'local', name: 'clock' } });
    expect(res).toEqual({ content: 'error not_found: No tool clock.\ndid you mean: clock_now\nnearest category: time (tool_list shows what is there)', isError: true });
  });

  it('renders run output compactly, with repairs, fallbacks and a length cap', async () => {
    const kit = await AgentToolkit.create(client, { preload: [], maxResultChars: 200 });
    const res = await kit.execute({ name: 'local__clock_now', arguments: {} });
    expect(res.content.split('\n')).toEqual([
      'note: argument /count was repaired: string "3" → number 3',
      'note: served by backup:clock_now (fallback for local:clock_now)',
      'xxx',
      '{"a":[2],"b":1}',
      '[image image/png, 10 bytes]',
    ]);
    const big = await kit.execute({ name: 'tool_run', arguments: { provider: 'local', name: 'big', arguments: {} } });
    expect(big.content).toMatch(/\[truncated: \d+ more characters\]$/);
  });

  it('says when nothing matched and what to try', async () => {
    const kit = await AgentToolkit.create(client, { preload: [] });
    const res = await kit.execute({ name: 'tool_search', arguments: { query: 'nothing' } });
    expect(res).toEqual({ content: 'no tools matched. Close names: clock_now. Try other or fewer words, or browse with tool_list.', isError: false });
  });
});
