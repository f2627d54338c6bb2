/**
 * A console client as the browser is one: session cookie, Origin and CSRF header on POSTs, JSON
 * answers parsed; `stream` reads a server-streaming RPC's Server-Sent Events.
 */
export interface Reply {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
  text: string;
}

/** One Server-Sent Event of a relayed stream. */
export interface StreamEvent {
  event: string;
  data: Record<string, unknown>;
}

export type ConsoleClient = ReturnType<typeof consoleClient>;

export function consoleClient(base: string) {
  let cookie = '';
  let csrf = '';
  const origin = base.replace(/\/$/, '');
  const headersFor = (method: string, headers: Record<string, string>) => ({
    ...(cookie ? { cookie } : {}),
    ...(method === 'POST' ? { origin, 'content-type': 'application/json', ...(csrf ? { 'x-csrf-token': csrf } : {}) } : {}),
    ...headers,
  });
  const request = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    const res = await fetch(new URL(path, base), { method, headers: headersFor(method, headers), body: body === undefined ? undefined : JSON.stringify(body) });
    const set = res.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0]!;
    const text = await res.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // static files are not JSON
    }
    if (typeof parsed['csrfToken'] === 'string') csrf = parsed['csrfToken'];
    return { status: res.status, body: parsed, headers: res.headers, text };
  };
  /**
   * POSTs a streaming RPC and yields its events as they arrive (`data` events as `message`); a
   * JSON answer (an error before the stream started) is yielded as one `json` event with `status`.
   */
  async function* stream(path: string, body: unknown, signal?: AbortSignal): AsyncGenerator<StreamEvent & { status: number }> {
    const res = await fetch(new URL(path, base), { method: 'POST', headers: headersFor('POST', {}), body: JSON.stringify(body), signal });
    if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
      yield { event: 'json', status: res.status, data: (await res.json()) as Record<string, unknown> };
      return;
    }
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let cut: number;
      while ((cut = buffered.indexOf('\n\n')) >= 0) {
        const block = buffered.slice(0, cut);
        buffered = buffered.slice(cut + 2);
        let event = 'message';
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ')) data.push(line.slice(6));
        }
        if (data.length) yield { event, status: res.status, data: JSON.parse(data.join('\n')) as Record<string, unknown> };
      }
    }
  }
  return { request, stream, forgetCsrf: () => (csrf = '') };
}

export const errorOf = (r: Pick<Reply, 'body'>) => r.body['error'] as { code: string; grpcStatus: string; message: string; violations?: Array<{ field: string; message: string }> };
