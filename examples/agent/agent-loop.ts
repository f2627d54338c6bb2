/**
 * The agent loop, the same for every model: offer the toolkit's tools (four meta-tools, the
 * preload set, then what the model discovered), let the model answer or call tools, execute each
 * call with AgentToolkit.execute() (never throws: failures come back as text the model can act
 * on), append the results, and repeat until the model answers or the step limit is reached.
 */
import type { AgentToolkit, ToolCallResult } from '@toolhub/agent-kit';

import type { AssistantMessage, ChatMessage, ChatModel, ChatToolCall, ChatUsage } from './chat';

/** The system prompt: teaches the discovery workflow in a few tokens. */
export const SYSTEM_PROMPT =
  'You answer with the help of ToolHub tools. When no offered tool fits, find one: tool_search (or tool_list), ' +
  'then tool_info for its schema, then tool_run with arguments that follow that schema. ' +
  'Use tool results, never guess them. Answer briefly once you have the result.';

/** What happens during a run, in order, for printing or tracing. */
export type AgentEvent =
  | { type: 'model'; step: number; message: AssistantMessage; usage: ChatUsage }
  | { type: 'tool'; step: number; call: ChatToolCall; result: ToolCallResult }
  | { type: 'answer'; step: number; text: string }
  | { type: 'step_limit'; step: number };

/** Options of {@link runAgent}. */
export interface AgentRunOptions {
  model: ChatModel;
  toolkit: AgentToolkit;
  task: string;
  /** @default SYSTEM_PROMPT */
  system?: string;
  /** Most model turns before giving up. @default 8 */
  maxSteps?: number;
  onEvent?: (event: AgentEvent) => void;
  signal?: AbortSignal;
}

/** One executed tool call. */
export interface ExecutedCall {
  name: string;
  arguments: string;
  content: string;
  isError: boolean;
}

/** The outcome of a run. */
export interface AgentRun {
  task: string;
  /** The model's final text; undefined when the step limit came first. */
  answer: string | undefined;
  /** Model turns made. */
  steps: number;
  usage: ChatUsage;
  calls: ExecutedCall[];
  messages: ChatMessage[];
}

/**
 * Runs one task to its answer.
 * @throws Error when the model endpoint fails (tool failures never throw; the model sees them).
 */
export async function runAgent(options: AgentRunOptions): Promise<AgentRun> {
  const { model, toolkit, task, maxSteps = 8, onEvent } = options;
  const messages: ChatMessage[] = [
    { role: 'system', content: options.system ?? SYSTEM_PROMPT },
    { role: 'user', content: task },
  ];
  const usage: ChatUsage = { promptTokens: 0, completionTokens: 0 };
  const calls: ExecutedCall[] = [];
  for (let step = 1; step <= maxSteps; step++) {
    // Re-read each turn: tool_info appends the discovered tool, so the model can call it directly.
    const { tools } = toolkit.tools('openai-chat');
    const res = await model.complete({ messages, tools }, { signal: options.signal });
    usage.promptTokens += res.usage.promptTokens;
    usage.completionTokens += res.usage.completionTokens;
    messages.push(res.message);
    onEvent?.({ type: 'model', step, message: res.message, usage: res.usage });
    const toolCalls = res.message.tool_calls ?? [];
    if (toolCalls.length === 0) {
      const text = res.message.content ?? '';
      onEvent?.({ type: 'answer', step, text });
      return { task, answer: text, steps: step, usage, calls, messages };
    }
    for (const call of toolCalls) {
      const result = await toolkit.execute({ name: call.function.name, arguments: call.function.arguments }, { signal: options.signal });
      calls.push({ name: call.function.name, arguments: call.function.arguments, content: result.content, isError: result.isError });
      messages.push({ role: 'tool', tool_call_id: call.id, content: result.content });
      onEvent?.({ type: 'tool', step, call, result });
    }
  }
  onEvent?.({ type: 'step_limit', step: maxSteps });
  return { task, answer: undefined, steps: maxSteps, usage, calls, messages };
}
