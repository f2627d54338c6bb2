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
