/**
 * The demo's tasks and the loop over them: one fresh agent (toolkit) per task, the given model,
 * ToolHub doing the rest. Shared by `npm run demo` and its unit test.
 */
import { AgentToolkit, estimateTokens, ExposedNameTable, exposedToolFromInfo, renderTools, type TokenCounter, type ToolHubApi } from '@toolhub/agent-kit';

import { type AgentRun, runAgent } from './agent-loop';
import type { ChatModel } from './chat';
import { stepPrinter } from './print-steps';

/** One task and how to tell that it was done right. */
export interface DemoTask {
  task: string;
  /** The tool id the agent should end up running. */
  expectedTool: string;
  /** Whether the final answer is correct. */
  check(answer: string): boolean;
}

/** The three demo tasks: a local tool, a local tool with structured input, and an MCP server's tool. */
export const DEMO_TASKS: readonly DemoTask[] = [
  { task: 'What is 17% of 2,340?', expectedTool: 'local:math_calculate', check: (a) => /\b397\.8\b/.test(a) },
  {
    task: 'Convert this JSON to CSV: [{"name":"Ada","lang":"en"},{"name":"Lin, Yu","lang":"fr"}]',
    expectedTool: 'local:data_json_to_csv',
    check: (a) => a.includes('name,lang\nAda,en\n"Lin, Yu",fr'),
  },
  { task: "Echo 'hello from MCP'", expectedTool: 'mcp:everything_echo', check: (a) => a.includes('hello from MCP') },
];

/** The outcome of one task. */
export interface DemoResult {
  task: DemoTask;
  run: AgentRun;
  /** The tool the agent ran successfully (provider:name), if any. */
  ranTool: string | undefined;
  ok: boolean;
  /** Tokens of the tool definitions offered in the first request and in the last one. */
  toolTokens: { first: number; last: number };
}

function ranToolOf(run: AgentRun): string | undefined {
  for (const c of [...run.calls].reverse()) {
    if (c.name !== 'tool_run' || c.isError) continue;
    const args = JSON.parse(c.arguments) as { provider?: string; name?: string };
    return args.name?.includes(':') ? args.name : `${args.provider}:${args.name}`;
  }
  return undefined;
}

/** Options of {@link runDemoTasks}. */
export interface RunDemoOptions {
  hub: ToolHubApi;
  model: ChatModel;
  /** @default DEMO_TASKS */
  tasks?: readonly DemoTask[];
  /** Receives each printed line; omit for silence. */
  print?: (line: string) => void;
  /** @default estimateTokens */
  countTokens?: TokenCounter;
}

/** Runs each task with a fresh toolkit and checks the tool it ran and its answer. */
export async function runDemoTasks(options: RunDemoOptions): Promise<DemoResult[]> {
  const { hub, model, print, countTokens = estimateTokens } = options;
  const results: DemoResult[] = [];
  const tasks = options.tasks ?? DEMO_TASKS;
  for (const [i, task] of tasks.entries()) {
    print?.('');
    print?.(`━━ Task ${i + 1}/${tasks.length}: ${task.task}`);
    const toolkit = await AgentToolkit.create(hub, { countTokens });
    const first = countTokens(toolkit.tools('openai-chat').json);
    const run = await runAgent({ model, toolkit, task: task.task, ...(print ? { onEvent: stepPrinter(print) } : {}) });
    const last = countTokens(toolkit.tools('openai-chat').json);
    const ranTool = ranToolOf(run);
    const ok = ranTool === task.expectedTool && run.answer !== undefined && task.check(run.answer);
    print?.(`         ${ok ? '✓' : '✗'} ran ${ranTool ?? 'no tool'}${ranTool === task.expectedTool ? '' : ` (expected ${task.expectedTool})`}; answer ${ok ? 'correct' : 'WRONG'}`);
    results.push({ task, run, ranTool, ok, toolTokens: { first, last } });
  }
  return results;
}

/** Tokens of every tool of every provider inlined as openai-chat tools (what ToolHub saves an agent from). */
export async function allToolsInlinedTokens(hub: ToolHubApi, countTokens: TokenCounter = estimateTokens): Promise<{ tools: number; tokens: number }> {
  const names = new ExposedNameTable();
  const providers = (await hub.listTools({})).categories.map((c) => c.name);
  const exposed = [];
  for (const provider of providers) {
    for (const t of (await hub.listTools({ provider, recursive: true })).tools) {
      const info = (await hub.getToolInfo({ provider, name: t.name })).tool;
      if (info) exposed.push(exposedToolFromInfo(info, names));
    }
  }
  return { tools: exposed.length, tokens: countTokens(renderTools(exposed, 'openai-chat').json) };
}
