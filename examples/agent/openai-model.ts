/**
 * A ChatModel for any OpenAI-compatible Chat Completions endpoint (OpenAI, Azure OpenAI's
 * v1 endpoint, vLLM, Ollama, LM Studio, llama.cpp server, OpenRouter, ...), with plain fetch: no
 * SDK at run time. Replies are normalised, since compatible servers differ in small ways
 * (arguments as an object, a missing tool call id, no usage).
 */
import type { AssistantMessage, ChatModel, ChatRequest, ChatResponse, ChatToolCall } from './chat';

/** Options of {@link OpenAICompatibleModel}. */
export interface OpenAICompatibleOptions {
  /** e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1` (Ollama). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; omit for local servers that need none. */
  apiKey?: string;
  model: string;
  /** @default 0 */
  temperature?: number;
  /** Per request. @default 120000 */
  timeoutMs?: number;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

interface WireToolCall {
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: unknown };
}

interface WireReply {
  choices?: { message?: { content?: string | null; tool_calls?: WireToolCall[] } }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  error?: { message?: string };
}

/** A chat model behind an OpenAI-compatible `/chat/completions`. */
export class OpenAICompatibleModel implements ChatModel {
  readonly name: string;
  private calls = 0;

  constructor(private readonly options: OpenAICompatibleOptions) {
    this.name = options.model;
  }

  /**
   * From OPENAI_BASE_URL (default https://api.openai.com/v1), OPENAI_API_KEY and OPENAI_MODEL.
   * @throws Error naming the variable when OPENAI_MODEL is missing, or the key is missing for api.openai.com.
   */
  static fromEnv(env: Readonly<Record<string, string | undefined>> = process.env): OpenAICompatibleModel {
    const baseUrl = (env['OPENAI_BASE_URL'] || 'https://api.openai.com/v1').replace(/\/+$/, '');
    const model = env['OPENAI_MODEL'];
    const apiKey = env['OPENAI_API_KEY'];
    if (!model) throw new Error('Set OPENAI_MODEL (e.g. gpt-4o-mini, or llama3.1 for Ollama); OPENAI_BASE_URL and OPENAI_API_KEY as your endpoint needs.');
    if (!apiKey && new URL(baseUrl).hostname === 'api.openai.com') throw new Error('Set OPENAI_API_KEY for api.openai.com (or OPENAI_BASE_URL for another OpenAI-compatible endpoint).');
    return new OpenAICompatibleModel({ baseUrl, model, ...(apiKey ? { apiKey } : {}) });
  }

  async complete(request: ChatRequest, options: { signal?: AbortSignal } = {}): Promise<ChatResponse> {
    const o = this.options;
    const timeout = AbortSignal.timeout(o.timeoutMs ?? 120_000);
    const res = await (o.fetch ?? fetch)(`${o.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}) },
      body: JSON.stringify({ model: o.model, messages: request.messages, tools: request.tools, tool_choice: 'auto', temperature: o.temperature ?? 0 }),
      signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
    });
    const text = await res.text();
    let reply: WireReply;
    try {
      reply = JSON.parse(text) as WireReply;
    } catch {
      throw new Error(`${o.baseUrl}/chat/completions answered HTTP ${res.status} with non-JSON: ${text.slice(0, 300)}`);
    }
    if (!res.ok) throw new Error(`${o.baseUrl}/chat/completions answered HTTP ${res.status}: ${reply.error?.message ?? text.slice(0, 300)}`);
    const msg = reply.choices?.[0]?.message;
    if (!msg) throw new Error(`${o.baseUrl}/chat/completions answered without choices[0].message: ${text.slice(0, 300)}`);
    const toolCalls: ChatToolCall[] = (msg.tool_calls ?? []).map((c) => ({
      id: c.id || `call_${++this.calls}`,
      type: 'function',
      function: { name: c.function?.name ?? '', arguments: typeof c.function?.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function?.arguments ?? {}) },
    }));
    const message: AssistantMessage = { role: 'assistant', content: msg.content ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) };
    return { message, usage: { promptTokens: reply.usage?.prompt_tokens ?? 0, completionTokens: reply.usage?.completion_tokens ?? 0 } };
  }
}
