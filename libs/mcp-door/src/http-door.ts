/**
 * The MCP front door over Streamable HTTP: `/mcp` on its own port, with the checks that come before
 * any MCP message is read — Origin (DNS rebinding), credentials (the MCP authorization spec:
 * protected-resource metadata, 401 + WWW-Authenticate), body size, one JSON object per POST —
 * then sessions (`Mcp-Session-Id`, capped, idle ones closed) or stateless answers, served by the
 * official SDK's server over a Node-native Streamable HTTP transport (node-transport.ts).
 * Beside it, for older hosts, the 2024-11-05 HTTP+SSE transport (node-sse-transport.ts): `GET /sse`
 * opens a session's event stream, `POST /messages?sessionId=…` carries its messages, behind the
 * same checks and in the same session table (cap, idle expiry, per-principal ownership).
 */
import { type Authenticator, hasRole, LOCAL_PRINCIPAL, type Principal } from '@toolhub/auth';
import { argumentLimitError, countJsonNodes, type PreloadTool, ToolHubError, toToolHubError } from '@toolhub/contracts';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { DoorBackend } from './backend';
import { createSessionServer } from './mcp-server';
import { NodeSseTransport } from './node-sse-transport';
import { NodeStreamableHttpTransport } from './node-transport';
import { ENVELOPE_NODES, type McpDoorOptions, type ResolvedMcpDoorOptions, withMcpDefaults } from './options';
import { DoorSession, fetchPreloadSet } from './session';

/** JSON-RPC error codes the door answers with before a message reaches the SDK. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
/** Server-defined: refused by the door (origin, credentials, session). */
const DOOR_REFUSED = -32000;
const SESSION_NOT_FOUND = -32001;
/** How long sessions of one principal share its fetched preload set. */
const PRELOAD_REUSE_MS = 10_000;
/** HTTP+SSE (2024-11-05): GET here opens a session's event stream... */
export const SSE_PATH = '/sse';
/** ...whose `endpoint` event points here: `POST /messages?sessionId=<id>`. */
export const SSE_MESSAGES_PATH = '/messages';

/** Which MCP transport a request came over (`none`: neither path, e.g. the metadata document). */
export type DoorTransport = 'streamable-http' | 'sse' | 'none';

/** Told about every request the door answered: JSON-RPC method (or HTTP verb), outcome and transport. */
export type RequestObserver = (method: string, outcome: string, transport: DoorTransport) => void;

export interface McpDoorDeps {
  /** Checks credentials; absent or disabled: local mode (loopback only), every caller is the local principal. */
  authenticator?: Authenticator;
  logger?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** Version in the MCP `serverInfo`. @default '0.1.0' */
  version?: string;
  /** Serve a non-loopback host without auth (only behind a proxy that authenticates; TOOLHUB_ALLOW_UNAUTHENTICATED). @default false */
  allowUnauthenticated?: boolean;
}

/** A session's transport, tagged by kind. */
type SessionTransport = { kind: 'streamable-http'; transport: NodeStreamableHttpTransport } | { kind: 'sse'; transport: NodeSseTransport };

type LiveSession = {
  session: DoorSession;
  /** The session's server declared MCP tasks (async runs were on when it was opened). */
  tasks: boolean;
  close(): Promise<void>;
} & SessionTransport;

/** A table entry for a session served over `transport`; closing it closes the transport, then the SDK server. */
function liveSession(
  transport: SessionTransport,
  session: DoorSession,
  server: { close(): Promise<void> },
  tasks: boolean,
): LiveSession {
  return {
    ...transport,
    session,
    tasks,
    close: async () => {
      await transport.transport.close().catch(() => undefined);
      await server.close().catch(() => undefined);
    },
  };
}

/**
 * Without the tasks capability the spec wants a task-augmented `tools/call` processed normally,
 * its `task` ignored; the SDK server would refuse it, so the door drops `task` first.
 */
function withoutTask(message: unknown, tasks: boolean): unknown {
  const m = message as { method?: unknown; params?: Record<string, unknown> } | undefined;
  if (tasks || m?.method !== 'tools/call' || !m.params || m.params['task'] === undefined) return message;
  const params = { ...m.params };
  delete params['task'];
  return { ...m, params };
}

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function rpcError(res: ServerResponse, status: number, code: number, message: string, headers?: Record<string, string>, id: unknown = null): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id }, headers);
}

/** The MCP door. Start with {@link McpDoor.start}; `close()` ends every session and the listener. */
export class McpDoor {
  private readonly sessions = new Map<string, LiveSession>();
  /** Each principal's preload set, shared by its sessions for a short while (new sessions and stateless requests cost no registry call). */
  private readonly preloads = new Map<string, { at: number; tools: Promise<PreloadTool[]> }>();
  private readonly http: HttpServer;
  private sweep: NodeJS.Timeout | undefined;
  private observer: RequestObserver | undefined;
  /** Sessions closed to make room or for idleness, since start. */
  evicted = 0;
  /** Runs followed for task notifications by all sessions together (capped by maxTaskWatchersTotal). */
  readonly taskWatchers: { active: number; readonly max: number };
  /** Where the door listens, e.g. `http://127.0.0.1:50055/mcp`. */
  address = '';
  private resourceUrl = '';
  private metadataPathOf: { resource: string; path: string } | undefined;

  private constructor(
    private readonly backend: DoorBackend,
    readonly options: ResolvedMcpDoorOptions,
    private readonly deps: McpDoorDeps,
  ) {
    this.taskWatchers = { active: 0, max: options.maxTaskWatchersTotal };
    this.http = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        this.deps.logger?.warn({ err: (err as Error).message }, 'MCP request failed inside the door');
        rpcError(res, 500, -32603, `Internal error of the ToolHub MCP door: ${toToolHubError(err).message}`);
      });
    });
    // A request (headers and body) must arrive promptly, so slow senders cannot hold memory;
    // answers (SSE streams of live sessions) may last as long as they need.
    this.http.headersTimeout = 30_000;
    this.http.requestTimeout = 60_000;
  }

  /**
   * Starts listening.
   * @throws ToolHubError failed_precondition for a non-loopback host without authentication.
   */
  static async start(backend: DoorBackend, options: McpDoorOptions = {}, deps: McpDoorDeps = {}): Promise<McpDoor> {
    const o = withMcpDefaults(options);
    if (!isLoopback(o.host) && !deps.authenticator?.enabled && !deps.allowUnauthenticated) {
      throw new ToolHubError(
        'failed_precondition',
        `The MCP door refuses to listen on ${o.host} without authentication: anyone who reaches that address could run tools. ` +
          'Set TOOLHUB_AUTH_API_KEYS or TOOLHUB_AUTH_JWT_ISSUER + TOOLHUB_AUTH_JWT_JWKS, or keep TOOLHUB_MCP_HOST on 127.0.0.1, or turn the door off with TOOLHUB_MCP_DOOR=false.',
      );
    }
    const door = new McpDoor(backend, o, deps);
    await new Promise<void>((resolve, reject) => {
      door.http.once('error', reject);
      door.http.listen(o.port, o.host, () => resolve());
    });
    const port = (door.http.address() as AddressInfo).port;
    const hostPart = o.host.includes(':') ? `[${o.host}]` : o.host;
    door.address = `http://${hostPart}:${port}/mcp`;
    door.resourceUrl = o.resourceUrl ?? door.address;
    const every = Math.max(1000, Math.min(60_000, Math.floor(o.sessionIdleMs / 4)));
    door.sweep = setInterval(() => door.expireIdle(), every);
    door.sweep.unref();
    return door;
  }

  /** The canonical URL of this resource: the audience MCP bearer tokens must carry. */
  get resource(): string {
    return this.resourceUrl;
  }

  /** Sessions open now. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Discovered (looked-up) tools listed by each open session. */
  loadedPerSession(): number[] {
    return [...this.sessions.values()].map((s) => s.session.loadedCount);
  }

  /** Registers the one observer of answered requests (metrics). */
  observe(observer: RequestObserver | undefined): void {
    this.observer = observer;
  }

  private note(method: string, outcome: string, transport: DoorTransport = 'streamable-http'): void {
    this.observer?.(method, outcome, transport);
  }

  /** Sessions open now by transport (the sessions gauge). */
  sessionsByTransport(): Record<'streamable-http' | 'sse', number> {
    const out = { 'streamable-http': 0, sse: 0 };
    for (const live of this.sessions.values()) out[live.kind]++;
    return out;
  }

  /** Where older hosts open an HTTP+SSE session, e.g. `http://127.0.0.1:50055/sse`. */
  get sseAddress(): string {
    return this.address === '' ? '' : new URL(SSE_PATH, this.address).href;
  }

  /** Closes sessions unused for longer than the idle limit. */
  expireIdle(now = Date.now()): number {
    let closed = 0;
    for (const [id, live] of this.sessions) {
      if (now - live.session.lastUsed > this.options.sessionIdleMs) {
        this.sessions.delete(id);
        void live.close();
        closed++;
      }
    }
    this.evicted += closed;
    return closed;
  }

  async close(): Promise<void> {
    if (this.sweep) clearInterval(this.sweep);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.close()));
    await new Promise<void>((resolve) => {
      this.http.close(() => resolve());
      this.http.closeAllConnections();
    });
  }

  /** The protected-resource metadata path of this resource (computed once: every request is checked against it). */
  private metadataPath(): string {
    if (this.metadataPathOf?.resource !== this.resourceUrl) {
      const path = new URL(this.resourceUrl).pathname.replace(/\/$/, '');
      this.metadataPathOf = { resource: this.resourceUrl, path: `/.well-known/oauth-protected-resource${path === '' || path === '/' ? '' : path}` };
    }
    return this.metadataPathOf.path;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/.well-known/oauth-protected-resource' || path === this.metadataPath()) return this.protectedResourceMetadata(req, res);
    const transport: DoorTransport = path === '/mcp' ? 'streamable-http' : path === SSE_PATH || path === SSE_MESSAGES_PATH ? 'sse' : 'none';
    if (transport === 'none') {
      this.note('http', 'not_found', 'none');
      return sendJson(res, 404, { error: 'not_found', message: `ToolHub serves MCP at /mcp (Streamable HTTP), and at ${SSE_PATH} + ${SSE_MESSAGES_PATH} (HTTP+SSE, for older hosts), not ${path}.` });
    }
    if (!this.originAllowed(req.headers.origin)) {
      this.note(req.method ?? 'http', 'forbidden_origin', transport);
      return rpcError(res, 403, DOOR_REFUSED, `Origin ${req.headers.origin} is not allowed (DNS rebinding protection). Add it to TOOLHUB_MCP_ALLOWED_ORIGINS if this page may use ToolHub.`);
    }
    // Local mode answers at once: no credential check to wait for.
    const principal = this.deps.authenticator?.enabled ? await this.authenticate(req, res, transport) : LOCAL_PRINCIPAL;
    if (!principal) return;
    if (path === SSE_PATH) {
      if (req.method === 'GET') return this.openSse(req, res, principal);
      this.note(req.method ?? 'http', 'method_not_allowed', transport);
      return rpcError(res, 405, DOOR_REFUSED, `Method ${req.method} is not allowed on ${SSE_PATH}; GET it to open an HTTP+SSE session, then POST messages to the URL of its "endpoint" event.`, { allow: 'GET' });
    }
    if (path === SSE_MESSAGES_PATH) {
      if (req.method === 'POST') return this.post(req, res, principal, transport);
      this.note(req.method ?? 'http', 'method_not_allowed', transport);
      return rpcError(res, 405, DOOR_REFUSED, `Method ${req.method} is not allowed on ${SSE_MESSAGES_PATH}; POST one JSON-RPC message to ${SSE_MESSAGES_PATH}?sessionId=<id> (answers come on the session's event stream).`, { allow: 'POST' });
    }
    if (req.method === 'POST') return this.post(req, res, principal, transport);
    if (req.method === 'GET' || req.method === 'DELETE') return this.sessionRequest(req, res, principal, undefined, req.method);
    this.note(req.method ?? 'http', 'method_not_allowed');
    return rpcError(res, 405, DOOR_REFUSED, `Method ${req.method} is not allowed on /mcp; use POST (messages), GET (the session's event stream) or DELETE (end the session).`, { allow: 'GET, POST, DELETE' });
  }

  private protectedResourceMetadata(req: IncomingMessage, res: ServerResponse): void {
    this.note('oauth-protected-resource', 'ok', 'none');
    sendJson(res, 200, {
      resource: this.resourceUrl,
      authorization_servers: this.options.authorizationServers,
      bearer_methods_supported: ['header'],
      resource_name: 'ToolHub MCP',
    }, { 'cache-control': 'max-age=300', 'access-control-allow-origin': '*' });
  }

  private originAllowed(origin: string | undefined): boolean {
    if (origin === undefined || origin === '') return true; // Not a browser: rebinding needs one.
    if (this.options.allowedOrigins.includes(origin)) return true;
    try {
      return isLoopback(new URL(origin).hostname);
    } catch {
      return false;
    }
  }

  /** The caller's principal, or undefined after answering 401/403. */
  private async authenticate(req: IncomingMessage, res: ServerResponse, transport: DoorTransport): Promise<Principal | undefined> {
    const auth = this.deps.authenticator;
    if (!auth?.enabled) return LOCAL_PRINCIPAL;
    const challenge = (error?: string) =>
      `Bearer resource_metadata="${new URL(this.metadataPath(), this.resourceUrl).href}"${error ? `, error="${error}"` : ''}`;
    const authorization = typeof req.headers.authorization === 'string' ? req.headers.authorization : undefined;
    const apiKey = typeof req.headers['x-api-key'] === 'string' ? req.headers['x-api-key'] : undefined;
    if (!authorization && !apiKey) {
      this.note(req.method ?? 'http', 'unauthenticated', transport);
      rpcError(res, 401, DOOR_REFUSED, `ToolHub needs credentials: send "Authorization: Bearer <token>" (a JWT for ${this.resourceUrl}, or an API key).`, { 'www-authenticate': challenge() });
      return undefined;
    }
    let principal: Principal;
    try {
      principal = await auth.authenticate({ authorization, apiKey });
    } catch (err) {
      this.note(req.method ?? 'http', 'unauthenticated', transport);
      rpcError(res, 401, DOOR_REFUSED, toToolHubError(err).message, { 'www-authenticate': challenge('invalid_token') });
      return undefined;
    }
    if (!hasRole(principal, 'agent')) {
      this.note(req.method ?? 'http', 'forbidden', transport);
      rpcError(res, 403, DOOR_REFUSED, `Running tools needs the agent role; ${principal.id} has ${principal.roles.join(', ') || 'no roles'}.`, { 'www-authenticate': challenge('insufficient_scope') });
      return undefined;
    }
    return principal;
  }

  /**
   * The POST's body, or 'too_large' past maxBodyBytes (the rest is drained, not kept). Read with
   * events rather than `for await`: the stream's async iterator cost about 1.5 µs more per request.
   */
  private readBody(req: IncomingMessage): Promise<Buffer | 'too_large'> {
    const declared = Number(req.headers['content-length']);
    const max = this.options.maxBodyBytes;
    if (Number.isFinite(declared) && declared > max) {
      req.resume();
      return Promise.resolve('too_large');
    }
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > max) {
          req.off('data', onData);
          req.resume();
          resolve('too_large');
          return;
        }
        chunks.push(chunk);
      };
      let ended = false;
      req.on('data', onData);
      req.once('end', () => {
        ended = true;
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      });
      req.once('error', reject);
      // Closed before 'end': the client went away mid-body. (Every request closes; an Error, with
      // its stack, is made only then.)
      req.once('close', () => {
        if (!ended) reject(new Error('the request closed before its body arrived'));
      });
    });
  }

  private async post(req: IncomingMessage, res: ServerResponse, principal: Principal, transport: 'streamable-http' | 'sse'): Promise<void> {
    const body = await this.readBody(req);
    if (body === 'too_large') {
      this.note('POST', 'too_large', transport);
      return rpcError(res, 413, INVALID_REQUEST, `The request body is over ${this.options.maxBodyBytes} bytes. Send smaller arguments (e.g. a file path instead of file contents).`, { connection: 'close' });
    }
    // Counted before parsing: JSON.parse of 180,000 properties alone holds the thread ~100 ms.
    const counted = countJsonNodes(body, this.options.maxBodyNodes);
    if (counted.exceeded) {
      this.note('POST', 'too_large', transport);
      const limit = this.options.maxBodyNodes - ENVELOPE_NODES;
      return rpcError(res, 413, INVALID_REQUEST, argumentLimitError({ bytes: body.length, nodes: counted.nodes, depth: 0, exceeded: 'nodes' }, { maxBytes: 0, maxNodes: limit, maxDepth: 0 }, "The request body's values").message);
    }
    let message: unknown;
    try {
      message = JSON.parse(body.toString('utf8'));
    } catch (err) {
      this.note('POST', 'parse_error', transport);
      return rpcError(res, 400, PARSE_ERROR, `Parse error: the body is not valid JSON (${(err as Error).message}). Send one JSON-RPC 2.0 message per POST.`);
    }
    if (Array.isArray(message)) {
      this.note('batch', 'invalid_request', transport);
      return rpcError(res, 400, INVALID_REQUEST, 'JSON-RPC batches are not supported (MCP 2025-06-18 removed them): send one message per POST.');
    }
    if (message === null || typeof message !== 'object' || (message as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
      this.note('POST', 'invalid_request', transport);
      return rpcError(res, 400, INVALID_REQUEST, 'Invalid request: expected one JSON-RPC 2.0 object, e.g. {"jsonrpc":"2.0","id":1,"method":"tools/list"}.');
    }
    const method = typeof (message as { method?: unknown }).method === 'string' ? (message as { method: string }).method : 'response';
    if (transport === 'sse') return this.ssePost(req, res, principal, message, method);
    if (this.options.stateless) return this.stateless(req, res, principal, message, method);
    return this.sessionRequest(req, res, principal, message, method);
  }

  private newSession(principal: Principal): DoorSession {
    return new DoorSession(this.backend, principal, this.options, 'mcp', () => this.preloadFor(principal));
  }

  private preloadFor(principal: Principal): Promise<PreloadTool[]> {
    const now = Date.now();
    const hit = this.preloads.get(principal.id);
    if (hit && now - hit.at < PRELOAD_REUSE_MS) return hit.tools;
    // Principals are few (credentials), but bound the map all the same.
    if (this.preloads.size >= 1000) this.preloads.clear();
    const tools = fetchPreloadSet(this.backend, principal, this.options.preloadTimeoutMs);
    // An empty set (registry not answering) is not kept: the next session asks again.
    void tools.then((t) => {
      if (t.length === 0 && this.preloads.get(principal.id)?.tools === tools) this.preloads.delete(principal.id);
    });
    this.preloads.set(principal.id, { at: now, tools });
    return tools;
  }

  /** `stateful`: a session that outlives the request (list_changed and task notifications can reach it). `tasks`: MCP tasks declared. */
  private serverFor(session: DoorSession, stateful: boolean, transport: 'streamable-http' | 'sse' = 'streamable-http') {
    // MCP tasks only while the dispatcher's async runs are on (checked per new session: they may come on after start).
    const runs = this.backend.asyncRuns;
    const o = this.options;
    const server = createSessionServer(session, {
      version: this.deps.version ?? '0.1.0',
      listChanged: stateful,
      // HTTP+SSE has one stream for everything: notifications go on it like on a POST's SSE stream.
      jsonResponse: transport === 'sse' ? false : o.jsonResponse,
      onCall: (outcome) => this.note('tools/call', outcome, transport),
      tasks: runs ? { runs, notify: stateful, pollIntervalMs: o.taskPollIntervalMs, maxWatchers: o.maxTaskWatchers, watchBudget: this.taskWatchers, listPageSize: o.taskListPageSize, maxResultChars: o.maxResultChars } : undefined,
    });
    return { server, tasks: runs !== undefined };
  }

  /** Stateless: a server and transport for this one request, gone with its answer. */
  private async stateless(req: IncomingMessage, res: ServerResponse, principal: Principal, message: unknown, method: string): Promise<void> {
    const session = this.newSession(principal);
    const { server, tasks } = this.serverFor(session, false);
    const transport = new NodeStreamableHttpTransport({ sessionIdGenerator: undefined, enableJsonResponse: this.options.jsonResponse });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, withoutTask(message, tasks));
    if (method !== 'tools/call') this.note(method, res.statusCode < 400 ? 'ok' : `http_${res.statusCode}`);
  }

  private async sessionRequest(req: IncomingMessage, res: ServerResponse, principal: Principal, message: unknown, method: string): Promise<void> {
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string' && sid !== '') {
      const live = this.sessions.get(sid);
      // Another principal's session id is as good as unknown: sessions are not bearer tokens.
      if (!live || live.kind !== 'streamable-http' || live.session.principal.id !== principal.id) {
        this.note(method, 'unknown_session');
        return rpcError(res, 404, SESSION_NOT_FOUND, `Session not found: ${sid} expired (unused for ${Math.round(this.options.sessionIdleMs / 1000)} s), was closed, or belongs to another caller. Start a new session with initialize.`);
      }
      live.session.lastUsed = Date.now();
      // LRU order: a used session moves to the end.
      this.sessions.delete(sid);
      this.sessions.set(sid, live);
      await live.transport.handleRequest(req, res, withoutTask(message, live.tasks));
      if (method !== 'tools/call') this.note(method, res.statusCode < 400 ? 'ok' : `http_${res.statusCode}`);
      return;
    }
    if (method !== 'initialize') {
      this.note(method, 'no_session');
      return rpcError(res, 400, DOOR_REFUSED, `Bad request: ${method === 'GET' || method === 'DELETE' ? method : `"${method}"`} needs the Mcp-Session-Id header of an initialized session; start one with initialize.`);
    }
    await this.openSession(req, res, principal, message);
  }

  private async openSession(req: IncomingMessage, res: ServerResponse, principal: Principal, message: unknown): Promise<void> {
    const session = this.newSession(principal);
    const { server, tasks } = this.serverFor(session, true);
    let id: string | undefined;
    const transport = new NodeStreamableHttpTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: this.options.jsonResponse,
      onsessioninitialized: (sid) => {
        id = sid;
        this.makeRoom();
        this.sessions.set(sid, live);
      },
      onsessionclosed: (sid) => {
        this.sessions.delete(sid);
      },
    });
    const live = liveSession({ kind: 'streamable-http', transport }, session, server, tasks);
    transport.onclose = () => {
      if (id !== undefined && this.sessions.get(id) === live) this.sessions.delete(id);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, message);
    this.note('initialize', res.statusCode < 400 ? 'ok' : `http_${res.statusCode}`);
  }

  /**
   * HTTP+SSE: a new session whose event stream is this GET's response. Its first event names
   * `/messages?sessionId=<id>`; the session lives as long as the stream (or until idle expiry or
   * eviction closes it), in the same table, cap and LRU order as Streamable HTTP sessions.
   */
  private async openSse(req: IncomingMessage, res: ServerResponse, principal: Principal): Promise<void> {
    if (this.options.stateless) {
      this.note('GET', 'stateless', 'sse');
      return rpcError(res, 400, DOOR_REFUSED, `HTTP+SSE needs a session on this replica, and this door is stateless (TOOLHUB_MCP_STATELESS): use Streamable HTTP at /mcp.`);
    }
    const accept = req.headers.accept ?? '';
    if (accept !== '' && !accept.includes('text/event-stream') && !accept.includes('*/*')) {
      this.note('GET', 'not_acceptable', 'sse');
      return rpcError(res, 406, DOOR_REFUSED, `Not Acceptable: GET ${SSE_PATH} answers an event stream; send "Accept: text/event-stream".`);
    }
    const session = this.newSession(principal);
    const { server, tasks } = this.serverFor(session, true, 'sse');
    const sid = randomUUID();
    const transport = new NodeSseTransport(res, SSE_MESSAGES_PATH, sid);
    const live = liveSession({ kind: 'sse', transport }, session, server, tasks);
    // The client closed the stream (or the door did): the session is gone; the SDK server aborts its in-flight requests.
    transport.onclose = () => {
      if (this.sessions.get(sid) === live) this.sessions.delete(sid);
    };
    this.makeRoom();
    this.sessions.set(sid, live);
    await server.connect(transport);
    transport.bindRequests(server);
    this.note('GET', 'ok', 'sse');
  }

  /** HTTP+SSE: one message POSTed to `/messages?sessionId=<id>`, answered 202; the server's answer goes out on the session's stream. */
  private ssePost(req: IncomingMessage, res: ServerResponse, principal: Principal, message: unknown, method: string): void {
    const sid = new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('sessionId');
    if (!sid) {
      this.note(method, 'no_session', 'sse');
      return rpcError(res, 400, DOOR_REFUSED, `Bad request: POST ${SSE_MESSAGES_PATH} needs ?sessionId=<id>, the URL of the "endpoint" event that GET ${SSE_PATH} sends first.`);
    }
    const live = this.sessions.get(sid);
    // As on /mcp: another principal's session id (or a Streamable HTTP one) is as good as unknown.
    if (!live || live.kind !== 'sse' || live.session.principal.id !== principal.id || !live.transport.open) {
      this.note(method, 'unknown_session', 'sse');
      return rpcError(res, 404, SESSION_NOT_FOUND, `Session not found: ${sid} expired (unused for ${Math.round(this.options.sessionIdleMs / 1000)} s), its event stream closed, or it belongs to another caller. Open a new session with GET ${SSE_PATH}.`);
    }
    live.session.lastUsed = Date.now();
    this.sessions.delete(sid);
    this.sessions.set(sid, live);
    live.transport.handlePost(req, res, withoutTask(message, live.tasks));
    if (method !== 'tools/call') this.note(method, res.statusCode < 400 ? 'ok' : `http_${res.statusCode}`, 'sse');
  }

  /**
   * At the cap, closes the least recently used session of the principal holding the most sessions
   * (Map order is use order), so one caller opening sessions in a loop evicts its own, not others'.
   */
  private makeRoom(): void {
    while (this.sessions.size >= this.options.maxSessions) {
      const held = new Map<string, number>();
      for (const live of this.sessions.values()) held.set(live.session.principal.id, (held.get(live.session.principal.id) ?? 0) + 1);
      let heaviest = '';
      for (const [id, n] of held) if (n > (held.get(heaviest) ?? 0)) heaviest = id;
      for (const [sid, live] of this.sessions) {
        if (live.session.principal.id !== heaviest) continue;
        this.sessions.delete(sid);
        this.evicted++;
        void live.close();
        break;
      }
    }
  }
}
