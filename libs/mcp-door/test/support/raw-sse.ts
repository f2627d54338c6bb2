/** Raw HTTP+SSE (2024-11-05) for the door's tests: open `GET /sse`, read its events, POST to its endpoint. */
import { AGENT_KEY } from './door-stack';

export interface SseEvent {
  event: string;
  data: string;
}

export interface RawSse {
  status: number;
  headers: Headers;
  /** The `endpoint` event's URL, resolved against the door (absent when the GET was refused). */
  endpoint?: URL;
  /** The refusal's JSON body (absent when the stream opened). */
  json?: { error?: { code: number; message: string } };
  /** The next event, or undefined once the stream has ended. */
  next(): Promise<SseEvent | undefined>;
  /** The next `message` event's JSON-RPC message whose id is `id` (others are skipped). */
  answer(id: number | string): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }>;
  close(): void;
}

function parseEvent(block: string): SseEvent {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  return { event, data: data.join('\n') };
}

/** GET `<door>/sse` with the agent's key unless `headers` say otherwise; reads the endpoint event when the stream opens. */
export async function openSse(doorAddress: string, headers: Record<string, string> = {}, path = '/sse', method = 'GET'): Promise<RawSse> {
  const abort = new AbortController();
  const url = new URL(path, doorAddress);
  const res = await fetch(url, { method, headers: { accept: 'text/event-stream', authorization: `Bearer ${AGENT_KEY}`, ...headers }, signal: abort.signal });
  const done = async () => undefined;
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: text ? (JSON.parse(text) as RawSse['json']) : {}, next: done, answer: () => Promise.reject(new Error('no stream')), close: () => undefined };
  }
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const next = async (): Promise<SseEvent | undefined> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        return parseEvent(block);
      }
      try {
        const { value, done: ended } = await reader.read();
        if (ended) return undefined;
        buffer += decoder.decode(value, { stream: true });
      } catch {
        return undefined; // aborted or reset: the stream is over
      }
    }
  };
  const first = await next();
  if (first?.event !== 'endpoint') throw new Error(`expected the endpoint event first, got ${JSON.stringify(first)}`);
  const answer = async (id: number | string) => {
    for (;;) {
      const e = await next();
      if (!e) throw new Error(`the stream ended before the answer to ${id}`);
      const m = JSON.parse(e.data) as { id?: unknown };
      if (e.event === 'message' && m.id === id) return m as Awaited<ReturnType<RawSse['answer']>>;
    }
  };
  return { status: res.status, headers: res.headers, endpoint: new URL(first.data, url), next, answer, close: () => abort.abort() };
}

/** POSTs `body` (a string as is, else JSON) to `url` with the agent's key and JSON content type unless `headers` say otherwise. */
export async function postMessage(url: URL | string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string; json: { error?: { code: number; message: string } } }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${AGENT_KEY}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: text.startsWith('{') ? (JSON.parse(text) as { error?: { code: number; message: string } }) : {} };
}
