/** The browser side of the console's JSON layer: session, CSRF header, proto-JSON calls, structured errors. */

export interface Session {
  signedIn: boolean;
  localMode: boolean;
  principal?: string;
  roles?: string[];
  csrfToken?: string;
}

export interface Violation {
  field: string;
  message: string;
  expected?: string;
  example?: string;
}

/** An error as the console API answers it: the gRPC status and the service's message and details. */
export class ApiError extends Error {
  constructor(
    readonly grpcStatus: string,
    readonly code: string,
    message: string,
    readonly violations: Violation[] = [],
    readonly suggestions: string[] = [],
  ) {
    super(message);
  }
}

let csrfToken = '';

async function parse(res: Response): Promise<unknown> {
  const body = (await res.json().catch(() => ({}))) as { error?: { grpcStatus?: string; code?: string; message?: string; violations?: Violation[]; suggestions?: string[] } };
  if (!res.ok || body.error) {
    const e = body.error ?? {};
    throw new ApiError(e.grpcStatus ?? String(res.status), e.code ?? 'unknown', e.message ?? `HTTP ${res.status}`, e.violations ?? [], e.suggestions ?? []);
  }
  return body;
}

function remember(s: Session): Session {
  csrfToken = s.csrfToken ?? '';
  return s;
}

export async function getSession(): Promise<Session> {
  return remember((await parse(await fetch('/api/session', { credentials: 'same-origin' }))) as Session);
}

async function post(path: string, body: unknown): Promise<unknown> {
  const res = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken },
    body: JSON.stringify(body),
  });
  return parse(res);
}

export async function signIn(credential: string): Promise<Session> {
  return remember((await post('/api/session', { credential })) as Session);
}

export async function signOut(): Promise<void> {
  await post('/api/session/end', {});
  csrfToken = '';
}

/** RegistryAdmin (the registry's operator API) or ToolHub (the agent API). */
export type Service = 'admin' | 'agent';
const SERVICE_NAMES: Record<Service, string> = { admin: 'toolhub.v1.RegistryAdmin', agent: 'toolhub.v1.ToolHub' };

export async function call<T>(service: Service, method: string, body: object = {}): Promise<T> {
  return (await post(`/api/${SERVICE_NAMES[service]}/${method}`, body)) as T;
}

/**
 * Opens a server-streaming RPC (WatchRun): the console answers it as Server-Sent Events on the
 * POST, read here with fetch (EventSource cannot POST or send the CSRF header). Calls `onMessage`
 * with each message; resolves when the stream ends, rejects with an ApiError when it fails (before
 * its first message, or with an `error` event later) or with an AbortError when `signal` aborts.
 */
export async function watch<T>(service: Service, method: string, body: object, onMessage: (msg: T) => void, signal: AbortSignal): Promise<void> {
  const res = await fetch(`/api/${SERVICE_NAMES[service]}/${method}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken, accept: 'text/event-stream' },
    body: JSON.stringify(body),
    signal,
  });
  if (!res.headers.get('content-type')?.startsWith('text/event-stream') || !res.body) {
    await parse(res);
    return;
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value;
    let cut: number;
    while ((cut = buffered.indexOf('\n\n')) >= 0) {
      const block = buffered.slice(0, cut);
      buffered = buffered.slice(cut + 2);
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      if (!data) continue; // a keep-alive comment
      if (event === 'message') onMessage(JSON.parse(data) as T);
      else if (event === 'error') {
        const e = (JSON.parse(data) as { error?: { grpcStatus?: string; code?: string; message?: string; violations?: Violation[]; suggestions?: string[] } }).error ?? {};
        throw new ApiError(e.grpcStatus ?? 'UNKNOWN', e.code ?? 'unknown', e.message ?? 'the stream failed', e.violations ?? [], e.suggestions ?? []);
      } else if (event === 'end') return;
    }
  }
}
