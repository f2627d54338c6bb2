/**
 * Compile-time proof that the rendered formats are what the official SDKs accept: `tsc -p
 * libs/agent-kit/tsconfig.json` (CI's typecheck) fails when a shape drifts from the SDK types.
 * Only types are imported, so the SDKs never load at run time; the assertions below keep the
 * test honest about the values too.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';

import { type ExposedTool, LoadedTools, META_TOOLS, renderTools } from '../src';

const preload = [
  {
    id: 'local:file_read',
    provider: 'local',
    name: 'file_read',
    description: 'Read a text file.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    version: 'v1',
  },
];
const tools: ExposedTool[] = new LoadedTools(preload).tools();

// OpenAI Chat Completions: `tools` of chat.completions.create().
const chat: OpenAI.Chat.Completions.ChatCompletionTool[] = renderTools(tools, 'openai-chat').tools;
const chatFunctions: OpenAI.Chat.Completions.ChatCompletionFunctionTool[] = renderTools(tools, 'openai-chat').tools;
const chatParams: OpenAI.Chat.Completions.ChatCompletionCreateParams['tools'] = renderTools(tools, 'openai-chat').tools;

// OpenAI Responses: `tools` of responses.create().
const responses: OpenAI.Responses.FunctionTool[] = renderTools(tools, 'openai-responses').tools;
const responsesParams: OpenAI.Responses.ResponseCreateParams['tools'] = renderTools(tools, 'openai-responses').tools;

// Anthropic Messages: `tools` of messages.create().
const anthropic: Anthropic.Messages.Tool[] = renderTools(tools, 'anthropic').tools;
const anthropicParams: Anthropic.Messages.MessageCreateParams['tools'] = renderTools(tools, 'anthropic').tools;

// The SDK types are real (not `any`): a wrong shape must not compile.
// @ts-expect-error Anthropic tools take `input_schema`, not `parameters`.
const wrongAnthropic: Anthropic.Messages.Tool[] = renderTools(tools, 'openai-responses').tools;
// @ts-expect-error Chat Completions nests the function under `function`.
const wrongChat: OpenAI.Chat.Completions.ChatCompletionTool[] = renderTools(tools, 'anthropic').tools;

describe('rendered formats against the official SDK types', () => {
  it('fills every field the SDK types require, for the meta-tools and the preload set', () => {
    expect(chat.map((t) => (t.type === 'function' ? t.function.name : ''))).toEqual([...META_TOOLS.map((t) => t.name), 'local__file_read']);
    expect(chatFunctions.every((t) => t.function.parameters?.type === 'object')).toBe(true);
    expect(chatParams).toHaveLength(5);
    expect(responses.every((t) => t.type === 'function' && t.strict === false && t.parameters?.type === 'object')).toBe(true);
    expect(responsesParams).toHaveLength(5);
    expect(anthropic.every((t) => t.input_schema.type === 'object' && typeof t.description === 'string')).toBe(true);
    expect(anthropicParams).toHaveLength(5);
    expect(wrongAnthropic).toHaveLength(5);
    expect(wrongChat).toHaveLength(5);
  });
});
