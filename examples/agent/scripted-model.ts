/**
 * A deterministic chat model for tests and the demo. It implements the same ChatModel interface
 * as a real endpoint and walks the discovery workflow the way a good LLM does:
 *   1. tool_search with queries for the task,
 *   2. tool_info on the first hit that fits (read from the search result),
 *   3. tool_run with arguments built from the schema tool_info returned, filled from the task,
 *   4. a final answer phrased from the tool's output (or the failure, if it failed).
 * It reads only the conversation, so every step depends on what ToolHub actually answered.
 */
import { estimateTokens, type OpenAIChatTool, type TokenCounter } from '@toolhub/agent-kit';

import type { AssistantMessage, ChatMessage, ChatModel, ChatRequest, ChatResponse } from './chat';
import { parseRunResult, parseSearchHits, parseToolInfo, type Schema } from './meta-results';
import { DEFAULT_SKILLS, type Skill, type TaskPlan, type TaskValue } from './skills';

/** Options of {@link ScriptedModel}. */
export interface ScriptedModelOptions {
  /** @default DEFAULT_SKILLS */
  skills?: readonly Skill[];
  /** Counts the tokens reported in `usage`. @default estimateTokens (bytes / 4) */
  countTokens?: TokenCounter;
}

interface ToolTurn {
  name: string;
  arguments: Record<string, unknown>;
  content: string;
}

/** The JSON types a property schema accepts (`type`, or those of its anyOf/oneOf alternatives). */
function acceptedTypes(schema: Schema): Set<string> {
  const out = new Set<string>();
  const t = schema['type'];
  if (typeof t === 'string') out.add(t);
  if (Array.isArray(t)) for (const x of t) out.add(String(x));
  for (const key of ['anyOf', 'oneOf']) {
    const alts = schema[key];
    if (Array.isArray(alts)) for (const alt of alts as Schema[]) for (const x of acceptedTypes(alt)) out.add(x);
  }
  if (out.size === 0) out.add('string');
  return out;
}

function valueFor(schema: Schema, v: TaskValue): unknown {
  const types = acceptedTypes(schema);
  if (v.kind === 'array') return types.has('array') ? v.value : types.has('string') ? v.text : undefined;
  if (v.kind === 'number') return types.has('number') || types.has('integer') ? v.value : types.has('string') ? String(v.value) : undefined;
  return types.has('string') ? v.value : undefined;
}

/**
 * Fills the required parameters of `schema` with the task's values, each used once, in order.
 * Optional parameters stay out (ToolHub fills their defaults and says so).
 */
export function fillArguments(schema: Schema, values: readonly TaskValue[]): { args: Record<string, unknown>; missing: string[] } {
  const props = (schema['properties'] ?? {}) as Record<string, Schema>;
  const required = ((schema['required'] ?? []) as string[]).filter((r) => r in props);
  const unused = [...values];
  const args: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const name of required) {
    const i = unused.findIndex((v) => valueFor(props[name]!, v) !== undefined);
    if (i < 0) {
      missing.push(name);
      continue;
    }
    args[name] = valueFor(props[name]!, unused[i]!);
    unused.splice(i, 1);
  }
  return { args, missing };
}

/** The deterministic model (see the module comment). */
export class ScriptedModel implements ChatModel {
  readonly name = 'scripted';
  private readonly skills: readonly Skill[];
  private readonly countTokens: TokenCounter;

  constructor(options: ScriptedModelOptions = {}) {
    this.skills = options.skills ?? DEFAULT_SKILLS;
    this.countTokens = options.countTokens ?? estimateTokens;
  }

  async complete(request: ChatRequest): Promise<ChatResponse> {
    const message = this.next(request.messages);
    return {
      message,
      usage: {
        promptTokens: this.countTokens(JSON.stringify(request.messages) + JSON.stringify(request.tools satisfies readonly OpenAIChatTool[])),
        completionTokens: this.countTokens(JSON.stringify(message)),
      },
    };
  }

  private next(messages: readonly ChatMessage[]): AssistantMessage {
    const userAt = messages.map((m) => m.role).lastIndexOf('user');
    const task = userAt >= 0 ? (messages[userAt] as { content: string }).content : '';
    const turns = this.toolTurns(messages.slice(userAt + 1));
    const plan = this.skills.map((s) => s.plan(task)).find((p): p is TaskPlan => p !== undefined);
    if (!plan) return answer("I can't do that task with the skills of this scripted model (percentages, arithmetic, JSON to CSV, echo).");
    const last = turns[turns.length - 1];
    if (!last) return call(turns.length, 'tool_search', { queries: plan.queries }, `Searching ToolHub for a tool: ${plan.queries.join('; ')}.`);
    switch (last.name) {
      case 'tool_search': {
        const hit = parseSearchHits(last.content).find((h) => plan.fits(h));
        if (!hit) return answer(`No tool that fits this task turned up for ${plan.queries.map((q) => `"${q}"`).join(', ')}.`);
        return call(turns.length, 'tool_info', { name: hit.id }, `${hit.id} fits; reading its schema.`);
      }
      case 'tool_info': {
        const info = parseToolInfo(last.content);
        if (!info) return answer(`I could not read that tool's description: ${last.content.split('\n')[0]}`);
        const { args, missing } = fillArguments(info.inputSchema, plan.values);
        if (missing.length) return answer(`${info.id} needs ${missing.join(', ')}, which the task does not give.`);
        return call(turns.length, 'tool_run', { provider: info.provider, name: info.name, arguments: args }, `Running ${info.id}.`);
      }
      case 'tool_run': {
        const result = parseRunResult(last.content);
        if (result.isError) return answer(`The tool failed: ${result.output.split('\n')[0]}`);
        return answer(plan.answer(result.output));
      }
      default:
        return answer(`Unexpected tool ${last.name}; stopping.`);
    }
  }

  /** The tool calls after the task, each with its result. */
  private toolTurns(messages: readonly ChatMessage[]): ToolTurn[] {
    const byId = new Map<string, { name: string; arguments: Record<string, unknown> }>();
    const turns: ToolTurn[] = [];
    for (const m of messages) {
      if (m.role === 'assistant') for (const c of m.tool_calls ?? []) byId.set(c.id, { name: c.function.name, arguments: JSON.parse(c.function.arguments) as Record<string, unknown> });
      if (m.role === 'tool') {
        const c = byId.get(m.tool_call_id);
        if (c) turns.push({ ...c, content: m.content });
      }
    }
    return turns;
  }
}

function answer(text: string): AssistantMessage {
  return { role: 'assistant', content: text };
}

function call(n: number, name: string, args: Record<string, unknown>, thought: string): AssistantMessage {
  return { role: 'assistant', content: thought, tool_calls: [{ id: `call_${n + 1}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }] };
}
