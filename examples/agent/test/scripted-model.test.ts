/** The scripted model reads the conversation: hits from tool_search, the schema from tool_info, the output of tool_run. */
import type { ChatMessage } from '../chat';
import { parseSearchHits, parseToolInfo } from '../meta-results';
import { fillArguments, ScriptedModel } from '../scripted-model';

const task = (content: string): ChatMessage[] => [
  { role: 'system', content: 'sys' },
  { role: 'user', content },
];

function after(messages: ChatMessage[], name: string, args: unknown, result: string, n: number): ChatMessage[] {
  return [
    ...messages,
    { role: 'assistant', content: null, tool_calls: [{ id: `call_${n}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
    { role: 'tool', tool_call_id: `call_${n}`, content: result },
  ];
}

const model = new ScriptedModel();
const next = async (messages: ChatMessage[]) => (await model.complete({ messages, tools: [] })).message;

describe('ScriptedModel', () => {
  it('searches first, then reads the first hit that fits, not merely the first hit', async () => {
    const start = task('What is 12% of 50?');
    const search = await next(start);
    expect(search.tool_calls?.[0]?.function).toEqual({ name: 'tool_search', arguments: JSON.stringify({ queries: ['calculate math expression', 'percentage of a number'] }) });
    const hits = ['acme:percent_badge - Shows a badge. [ui]', 'acme:calc_engine - Calculate any arithmetic expression. [math]', 'next: tool_info {"name":"<id>"} for the schema of the best match'].join('\n');
    const info = await next(after(start, 'tool_search', {}, hits, 1));
    expect(info.tool_calls?.[0]?.function).toEqual({ name: 'tool_info', arguments: '{"name":"acme:calc_engine"}' });
  });

  it('fills the parameter names the schema gives, whatever they are called', async () => {
    const start = after(task('What is 12% of 50?'), 'tool_search', {}, 'acme:calc_engine - Calculate any arithmetic expression.', 1);
    const infoText = ['acme:calc_engine [math]', 'Calculates.', 'input: {"properties":{"formula":{"type":"string"},"digits":{"type":"integer"}},"required":["formula"],"type":"object"}'].join('\n');
    const run = await next(after(start, 'tool_info', { name: 'acme:calc_engine' }, infoText, 2));
    expect(JSON.parse(run.tool_calls![0]!.function.arguments)).toEqual({ provider: 'acme', name: 'calc_engine', arguments: { formula: '12 / 100 * 50' } });
    const answer = await next(after(after(start, 'tool_info', {}, infoText, 2), 'tool_run', {}, 'note: repaired\n6', 3));
    expect(answer).toEqual({ role: 'assistant', content: '12% of 50 is 6.' });
  });

  it('answers with the failure when the tool fails, and says so when no skill or no hit fits', async () => {
    const failed = await next(after(after(after(task("Echo 'x'"), 'tool_search', {}, 'm:echo - Echo.', 1), 'tool_info', {}, 'm:echo\nEcho.\ninput: {"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}', 2), 'tool_run', {}, 'error unavailable: the MCP server is down', 3));
    expect(failed.content).toBe('The tool failed: error unavailable: the MCP server is down');
    expect((await next(task('Write me a poem'))).content).toContain("I can't do that task");
    expect((await next(after(task("Echo 'x'"), 'tool_search', {}, 'no tools matched. Try other or fewer words, or browse with tool_list.', 1))).content).toContain('No tool that fits this task turned up');
  });
});

describe('fillArguments', () => {
  it('gives an array where the schema accepts one, else its JSON text, and reports what it cannot fill', () => {
    const values = [{ kind: 'array' as const, value: [{ a: 1 }], text: '[{"a":1}]' }];
    expect(fillArguments({ properties: { data: { anyOf: [{ type: 'array' }, { type: 'string' }] } }, required: ['data'] }, values).args).toEqual({ data: [{ a: 1 }] });
    expect(fillArguments({ properties: { json: { type: 'string' } }, required: ['json'] }, values).args).toEqual({ json: '[{"a":1}]' });
    expect(fillArguments({ properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a', 'b'] }, [{ kind: 'string', value: 'x' }])).toEqual({ args: { a: 'x' }, missing: ['b'] });
  });
});

describe('meta-tool result parsing', () => {
  it('reads search hit lines and tool info', () => {
    expect(parseSearchHits('local:file_read - Read a file. [file]\nsee also: x\nnext: ...')).toEqual([{ id: 'local:file_read', provider: 'local', name: 'file_read', summary: 'Read a file.', path: 'file' }]);
    expect(parseToolInfo('mcp:everything_echo [demo/everything] (read-only)\nEchoes.\ninput: {"type":"object"}\ncall: ...')).toEqual({ id: 'mcp:everything_echo', provider: 'mcp', name: 'everything_echo', description: 'Echoes.', inputSchema: { type: 'object' } });
    expect(parseToolInfo('error not_found: no such tool')).toBeUndefined();
  });
});
