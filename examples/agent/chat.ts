/**
 * The chat interface every model of this example implements: the OpenAI Chat Completions shape
 * (messages with tool_calls, tool results by tool_call_id, function tools). The agent loop talks
 * only to this interface, so a real endpoint and the scripted model run through the same code.
 */
import type { OpenAIChatTool } from '@toolhub/agent-kit';

/** A function call the model asks for; `arguments` is JSON text, as OpenAI sends it. */
export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** The model's turn: text, tool calls, or both. */
export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ChatToolCall[];
}

/** One message of the conversation. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | AssistantMessage
  | { role: 'tool'; tool_call_id: string; content: string };

/** What the model gets each turn: the whole conversation and the tools it may call now. */
export interface ChatRequest {
  messages: readonly ChatMessage[];
  tools: readonly OpenAIChatTool[];
}

/** Tokens of one model call (as the endpoint reports them, or counted by the scripted model). */
export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
}

/** The model's answer to one request. */
export interface ChatResponse {
  message: AssistantMessage;
  usage: ChatUsage;
}

/** A chat model with tool calling. */
export interface ChatModel {
  /** For the printout, e.g. `gpt-4o-mini` or `scripted`. */
  readonly name: string;
  /** One model turn. @throws Error when the endpoint fails (HTTP error, bad reply). */
  complete(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResponse>;
}
