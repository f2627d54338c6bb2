/** An OpenAI-compatible /chat/completions server for tests, answering with any ChatModel. */
import { createServer, type IncomingMessage, type Server } from 'node:http';

import type { ChatModel, ChatRequest } from '../chat';

export interface FakeEndpoint {
  baseUrl: string;
  /** Every request body and its Authorization header. */
  requests: { body: Record<string, unknown>; authorization: string | undefined }[];
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Serves POST /v1/chat/completions in the OpenAI wire format. `reply` may rewrite the wire reply
 * (to imitate servers that differ), `status` forces an HTTP error.
 */
export async function startFakeEndpoint(model: ChatModel, options: { reply?: (wire: Record<string, unknown>) => Record<string, unknown>; status?: number } = {}): Promise<FakeEndpoint> {
  const requests: FakeEndpoint['requests'] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const parsed = JSON.parse(await body(req)) as Record<string, unknown>;
      requests.push({ body: parsed, authorization: req.headers.authorization });
      res.setHeader('content-type', 'application/json');
      if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      if (options.status) {
        res.statusCode = options.status;
        res.end(JSON.stringify({ error: { message: 'Incorrect API key provided' } }));
        return;
      }
      const out = await model.complete({ messages: parsed['messages'], tools: parsed['tools'] } as ChatRequest);
      const wire = {
        id: 'chatcmpl-test',
        object: 'chat.completion',
        choices: [{ index: 0, message: out.message, finish_reason: out.message.tool_calls ? 'tool_calls' : 'stop' }],
        usage: { prompt_tokens: out.usage.promptTokens, completion_tokens: out.usage.completionTokens },
      };
      res.end(JSON.stringify(options.reply ? options.reply(wire) : wire));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
