/**
 * The demo's task loop against a whole in-process ToolHub (local tools, server-everything over
 * stdio, the Petstore document, registry, dispatcher): each task must reach the right tool and a
 * correct answer, and the same loop must work through an OpenAI-compatible HTTP endpoint.
 */
import { AgentToolkit, ToolHubAgentClient } from '@toolhub/agent-kit';

import { runAgent } from '../agent-loop';
import { DEMO_TASKS, runDemoTasks } from '../demo-tasks';
import { OpenAICompatibleModel } from '../openai-model';
import { ScriptedModel } from '../scripted-model';
import { type InProcessToolHub, startInProcessToolHub } from '../toolhub-in-process';
import { startFakeEndpoint } from './support';

jest.setTimeout(60_000);

let hub: InProcessToolHub;
let client: ToolHubAgentClient;

beforeAll(async () => {
  hub = await startInProcessToolHub();
  client = await ToolHubAgentClient.connect(hub.address, { caller: 'demo-test' });
});

afterAll(async () => {
  client?.close();
  await hub?.close();
});

describe('the demo', () => {
  it('walks every task through search → info → run → answer and gets it right', async () => {
    const lines: string[] = [];
    const results = await runDemoTasks({ hub: client, model: new ScriptedModel(), print: (l) => lines.push(l) });
    expect(results.map((r) => r.ranTool)).toEqual(['local:math_calculate', 'local:data_json_to_csv', 'mcp:everything_echo']);
    expect(results.map((r) => r.run.calls.map((c) => c.name))).toEqual(DEMO_TASKS.map(() => ['tool_search', 'tool_info', 'tool_run']));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(results[0]!.run.answer).toBe('17% of 2,340 is 397.8.');
    expect(results[1]!.run.answer).toContain('name,lang\nAda,en\n"Lin, Yu",fr');
    expect(results[2]!.run.answer).toBe('The echo tool answered: Echo: hello from MCP');
    // The discovered tool is appended to what the model is offered, after the meta-tools.
    expect(results.every((r) => r.toolTokens.last > r.toolTokens.first)).toBe(true);
    const printed = lines.join('\n');
    expect(printed).toContain('→ tool_search {"queries":["calculate math expression","percentage of a number"]}');
    expect(printed).toContain('1. local:math_calculate - ');
    expect(printed).toContain('schema: expression: string (required), precision: integer = 14');
    expect(printed).toContain('→ tool_run {"provider":"local","name":"math_calculate","arguments":{"expression":"17 / 100 * 2340"}}');
    expect(printed).toContain('← 397.8');
    expect(printed).toContain('answer 17% of 2,340 is 397.8.');
  });

  it('runs the same loop through an OpenAI-compatible endpoint over HTTP', async () => {
    const endpoint = await startFakeEndpoint(new ScriptedModel());
    try {
      const model = new OpenAICompatibleModel({ baseUrl: endpoint.baseUrl, apiKey: 'sk-test', model: 'fake-gpt' });
      const toolkit = await AgentToolkit.create(client);
      const run = await runAgent({ model, toolkit, task: 'What is 17% of 2,340?' });
      expect(run.answer).toBe('17% of 2,340 is 397.8.');
      expect(endpoint.requests).toHaveLength(4);
      const first = endpoint.requests[0]!;
      expect(first.authorization).toBe('Bearer sk-test');
      expect(first.body).toMatchObject({ model: 'fake-gpt', tool_choice: 'auto', messages: [{ role: 'system' }, { role: 'user', content: 'What is 17% of 2,340?' }] });
      expect((first.body['tools'] as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(['tool_list', 'tool_info', 'tool_run', 'tool_search']);
      // After tool_info, the discovered tool is offered for direct calls too.
      expect((endpoint.requests[2]!.body['tools'] as { function: { name: string } }[]).map((t) => t.function.name)).toContain('local__math_calculate');
      expect(run.usage.promptTokens).toBeGreaterThan(0);
    } finally {
      await endpoint.close();
    }
  });

  it('stops at the step limit when the model never answers', async () => {
    const looping = { name: 'looping', complete: async () => ({ message: { role: 'assistant' as const, content: null, tool_calls: [{ id: 'c', type: 'function' as const, function: { name: 'tool_list', arguments: '{}' } }] }, usage: { promptTokens: 1, completionTokens: 1 } }) };
    const run = await runAgent({ model: looping, toolkit: await AgentToolkit.create(client), task: 'loop', maxSteps: 3 });
    expect(run.answer).toBeUndefined();
    expect(run.steps).toBe(3);
    expect(run.calls).toHaveLength(3);
    expect(run.calls[0]!.content).toContain('providers: ');
  });
});
