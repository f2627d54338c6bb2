/** The fetch-based model copes with what OpenAI-compatible servers actually send. */
import type { ChatModel } from '../chat';
import { OpenAICompatibleModel } from '../openai-model';
import { startFakeEndpoint } from './support';

const fixed: ChatModel = {
  name: 'fixed',
  complete: async () => ({ message: { role: 'assistant', content: 'hi' }, usage: { promptTokens: 3, completionTokens: 1 } }),
};

describe('OpenAICompatibleModel', () => {
  it('normalises tool calls with object arguments and no id (as some local servers send them)', async () => {
    const endpoint = await startFakeEndpoint(fixed, {
      reply: () => ({ choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'tool_search', arguments: { queries: ['x'] } } }] } }] }),
    });
    try {
      const res = await new OpenAICompatibleModel({ baseUrl: `${endpoint.baseUrl}/`, model: 'local' }).complete({ messages: [{ role: 'user', content: 'x' }], tools: [] });
      expect(res.message.tool_calls).toEqual([{ id: 'call_1', type: 'function', function: { name: 'tool_search', arguments: '{"queries":["x"]}' } }]);
      expect(res.usage).toEqual({ promptTokens: 0, completionTokens: 0 });
      expect(endpoint.requests[0]!.authorization).toBeUndefined();
    } finally {
      await endpoint.close();
    }
  });

  it("fails with the endpoint's own message on an HTTP error", async () => {
    const endpoint = await startFakeEndpoint(fixed, { status: 401 });
    try {
      await expect(new OpenAICompatibleModel({ baseUrl: endpoint.baseUrl, apiKey: 'bad', model: 'm' }).complete({ messages: [], tools: [] })).rejects.toThrow(/answered HTTP 401: Incorrect API key provided/);
    } finally {
      await endpoint.close();
    }
  });

  it('reads OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL, and names what is missing', () => {
    expect(OpenAICompatibleModel.fromEnv({ OPENAI_BASE_URL: 'http://localhost:11434/v1', OPENAI_MODEL: 'llama3.1' }).name).toBe('llama3.1');
    expect(() => OpenAICompatibleModel.fromEnv({})).toThrow(/Set OPENAI_MODEL/);
    expect(() => OpenAICompatibleModel.fromEnv({ OPENAI_MODEL: 'gpt-4o-mini' })).toThrow(/Set OPENAI_API_KEY/);
  });
});
