/**
 * One live connection to one configured MCP server, whatever the transport: started on first use
 * (or at start-up), one process per stdio server for the adapter's whole life, re-listed on
 * `notifications/tools/list_changed`, restarted with backoff when the process exits or the
 * connection drops, and closed without leaving a process behind.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type CallToolResult, CallToolResultSchema, ProgressNotificationSchema, type Tool, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ToolHubError } from '@toolhub/contracts';

import { callError, classifyCallError, withDeadline } from './call-errors';
import type { McpServerConfig } from './config';
import { trackChild, untrackChild } from './children';
import type { McpLogger } from './logger';
import type { SecretRedactor as Redactor } from '@toolhub/config';
import { endpointOf } from './secrets';

/** Where a connection stands. */
export type ConnectionState = 'idle' | 'connecting' | 'ready' | 'disconnected' | 'backoff' | 'closed';

/** Why the tool list was (re)read. */
export type ToolsReason = 'connected' | 'reconnected' | 'list_changed';

/** Reconnection timing. */
export interface BackoffOptions {
  /** First delay after a failure. @default 200 */
  initialMs?: number;
  /** Longest delay. @default 30000 */
  maxMs?: number;
  /** A connection that lived this long resets the backoff when it drops. @default 10000 */
  stableAfterMs?: number;
}

/** What {@link McpServerConnection.status} reports (never a secret). */
export interface ConnectionStatus {
  readonly alias: string;
  readonly transport: McpServerConfig['transport']['type'];
  /** `stdio`, or the server's origin (scheme, host, port). */
  readonly endpoint: string;
  readonly state: ConnectionState;
  /** Process id of a running stdio server. */
  readonly pid?: number;
  /** Successful connections so far (more than one means it was restarted or reconnected). */
  readonly connects: number;
  /** Redacted message of the last failure. */
  readonly lastError?: string;
  /** While backing off: time until the next attempt. */
  readonly retryInMs?: number;
}

export interface ConnectionOptions {
  readonly logger: McpLogger;
  readonly redactor: Redactor;
  readonly clientInfo: { name: string; version: string };
  readonly backoff: Required<BackoffOptions>;
  /** Receives every fresh tool list. */
  readonly onTools: (tools: Tool[], reason: ToolsReason) => void;
}

/** One call's limits and identity, for error messages. */
export interface CallOptions {
  readonly signal: AbortSignal;
  /** Absolute deadline, epoch ms. */
  readonly deadline: number;
  /** ToolHub name, for messages. */
  readonly name: string;
  /** The tool is read-only or idempotent, so it may be sent again after a dropped connection. */
  readonly retrySafe: boolean;
  /**
   * Receives the server's `notifications/progress` for this call. Only when set is the request
   * sent with a `progressToken`, so servers report progress only to a caller that listens.
   */
  readonly onProgress?: (update: { progress?: number; total?: number; message?: string }) => void;
}

interface Session {
  readonly client: Client;
  readonly transport: Transport;
  pid?: number;
  readonly stderrTail: string[];
  readonly startedAt: number;
  /** Closed by us, or its close was handled. */
  dropped: boolean;
  /** A list_changed arrived before the session was installed. */
  relistPending: boolean;
  /** A liveness ping is in flight. */
  probing: boolean;
}

const MAX_PAGES = 1000;
const STDERR_TAIL_LINES = 20;
const PROBE_TIMEOUT_MS = 2000;
/** The SDK re-opens a broken HTTP event stream itself a couple of times before giving up and telling us. */
const HTTP_STREAM_RECONNECTION = { initialReconnectionDelay: 500, maxReconnectionDelay: 5000, reconnectionDelayGrowFactor: 2, maxRetries: 2 };

export class McpServerConnection {
  /** Calls listening to their progress, by the progressToken sent with them. */
  private readonly progressListeners = new Map<string, NonNullable<CallOptions['onProgress']>>();
  private progressSequence = 0;
  private session: Session | undefined;
  private connecting: Promise<Session> | undefined;
  private state: ConnectionState = 'idle';
  private failures = 0;
  private nextAttemptAt = 0;
  private lastError: string | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private relisting: Promise<void> | undefined;
  private relistAgain = false;
  private connects = 0;
  private closed = false;

  constructor(
    readonly server: McpServerConfig,
    private readonly options: ConnectionOptions,
  ) {}

  get alias(): string {
    return this.server.alias;
  }

  status(): ConnectionStatus {
    const retryInMs = this.state === 'backoff' ? Math.max(0, this.nextAttemptAt - Date.now()) : undefined;
    return {
      alias: this.alias,
      transport: this.server.transport.type,
      endpoint: endpointOf(this.server),
      state: this.state,
      ...(this.session?.pid !== undefined ? { pid: this.session.pid } : {}),
      connects: this.connects,
      ...(this.lastError !== undefined ? { lastError: this.lastError } : {}),
      ...(retryInMs !== undefined ? { retryInMs } : {}),
    };
  }

  /**
   * Connects (and lists tools) unless connected already. While backing off after a failed attempt
   * it fails at once instead of hammering the server.
   * @throws ToolHubError unavailable (retryable, with retryAfterMs while backing off)
   */
  async ready(): Promise<void> {
    await this.readySession();
  }

  private readySession(): Promise<Session> {
    if (this.closed) return Promise.reject(ToolHubError.unavailable(`The MCP adapter is shutting down; server ${JSON.stringify(this.alias)} is closed.`));
    if (this.session && !this.session.dropped) return Promise.resolve(this.session);
    if (this.connecting) return this.connecting;
    const wait = this.nextAttemptAt - Date.now();
    if (this.state === 'backoff' && wait > 0) {
      return Promise.reject(
        new ToolHubError('unavailable', `MCP server ${JSON.stringify(this.alias)} is unavailable (${this.lastError ?? 'connection failed'}); ToolHub retries in ${Math.ceil(wait / 1000)} s.`, {
          retryable: true,
          retryAfterMs: wait,
        }),
      );
    }
    return this.connect();
  }

  /**
   * Calls one tool before the deadline. Passing the deadline (or an abort of `signal`) sends the
   * server `notifications/cancelled`. A call that never reached the server (the process had just
   * died, the HTTP session expired) is sent once more on a fresh connection; one that was cut off
   * mid-way is sent again only when `retrySafe`.
   * @throws ToolHubError timeout, unavailable, invalid_argument or failed
   */
  async call(native: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    const started = Date.now();
    const deadline = Math.min(options.deadline, started + this.server.timeoutMs);
    for (let attempt = 0; ; attempt++) {
      const session = await withDeadline(this.readySession(), deadline, options.signal, () =>
        ToolHubError.timeout(`MCP server ${JSON.stringify(this.alias)} did not start or connect within ${deadline - started} ms; retry with a larger timeout_ms.`),
      );
      try {
        // A progressToken only when someone listens: servers then report progress, else they need not.
        const token = options.onProgress ? `toolhub-${++this.progressSequence}` : undefined;
        if (token) this.progressListeners.set(token, options.onProgress!);
        try {
          return (await session.client.callTool({ name: native, arguments: args, ...(token ? { _meta: { progressToken: token } } : {}) }, CallToolResultSchema, {
            signal: options.signal,
            // The deadline stays absolute: progress does not extend it.
            timeout: Math.max(1, deadline - Date.now()),
          })) as CallToolResult;
        } finally {
          if (token) this.progressListeners.delete(token);
        }
      } catch (err) {
        const kind = classifyCallError(err, options.signal);
        if (kind === 'not_delivered' || kind === 'connection_lost') this.drop(session, err);
        const again = kind === 'not_delivered' || (kind === 'connection_lost' && options.retrySafe);
        if (attempt === 0 && again && Date.now() < deadline && !options.signal.aborted) {
          this.options.logger.info({ alias: this.alias, tool: native, kind }, 'MCP call did not complete; retrying once on a fresh connection');
          continue;
        }
        throw callError(err, kind, { alias: this.alias, name: options.name, elapsedMs: Date.now() - started, retrySafe: options.retrySafe, redactor: this.options.redactor });
      }
    }
  }

  /** Closes the connection for good; a stdio server is stopped (stdin closed, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    this.closed = true;
    this.state = 'closed';
    clearTimeout(this.reconnectTimer);
    const pending = this.connecting?.catch(() => undefined);
    const session = this.session;
    this.session = undefined;
    if (session) await this.dispose(session, true);
    const late = await pending;
    if (late) await this.dispose(late, true);
  }

  private connect(): Promise<Session> {
    clearTimeout(this.reconnectTimer);
    this.state = 'connecting';
    const attempt = this.open().then(
      (session) => {
        if (this.closed) {
          void this.dispose(session, true);
          throw ToolHubError.unavailable(`The MCP adapter is shutting down; server ${JSON.stringify(this.alias)} is closed.`);
        }
        return session;
      },
      (err: unknown) => {
        this.failures++;
        this.lastError = this.options.redactor.message(err);
        if (!this.closed) {
          this.state = 'backoff';
          const delay = this.scheduleReconnect();
          this.options.logger.warn({ alias: this.alias, endpoint: endpointOf(this.server), attempt: this.failures, retryInMs: delay, error: this.lastError }, 'MCP server connection failed');
        }
        throw err instanceof ToolHubError
          ? err
          : new ToolHubError('unavailable', `MCP server ${JSON.stringify(this.alias)} could not be reached: ${this.lastError}. ToolHub retries with backoff; try again shortly.`, { cause: err, retryable: true });
      },
    );
    this.connecting = attempt;
    const clear = (): void => {
      if (this.connecting === attempt) this.connecting = undefined;
    };
    attempt.then(clear, clear);
    return attempt;
  }

  private async open(): Promise<Session> {
    const { client, transport, stderrTail } = this.createClient();
    const session: Session = { client, transport, stderrTail, startedAt: Date.now(), dropped: false, relistPending: false, probing: false };
    client.onclose = () => this.onClosed(session);
    client.onerror = (err) => this.onTransportError(session, err);
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (this.session === session) this.relist();
      else session.relistPending = true;
    });
    // Our own progress routing instead of callTool's `onprogress`: the SDK client runs notification
    // handlers a microtask late but handles the response at once, dropping its progress handler
    // first, so the update a server sends just before its result (often the last, 100%) was lost.
    client.setNotificationHandler(ProgressNotificationSchema, (n) => {
      const { progressToken, progress, total, message } = n.params;
      this.progressListeners.get(String(progressToken))?.({ progress, total, message });
    });
    const timeout = this.server.connectTimeoutMs;
    try {
      await client.connect(transport, { timeout });
      if (transport instanceof StdioClientTransport && transport.pid !== null) {
        session.pid = transport.pid;
        trackChild(transport.pid);
      }
      const tools = await this.listAll(client, timeout);
      if (session.dropped) throw new Error('the server closed the connection while its tools were being listed');
      this.session = session;
      this.state = 'ready';
      this.connects++;
      this.lastError = undefined;
      this.options.logger.info({ alias: this.alias, endpoint: endpointOf(this.server), pid: session.pid, tools: tools.length }, this.connects > 1 ? 'MCP server reconnected' : 'MCP server connected');
      this.options.onTools(tools, this.connects > 1 ? 'reconnected' : 'connected');
      if (session.relistPending) this.relist();
      return session;
    } catch (err) {
      await this.dispose(session, false);
      const tail = session.stderrTail.length ? ` (stderr: ${this.options.redactor.redact(session.stderrTail.slice(-3).join(' | '))})` : '';
      throw new Error(`${this.options.redactor.message(err)}${tail}`, { cause: err });
    }
  }

  private createClient(): { client: Client; transport: Transport; stderrTail: string[] } {
    const t = this.server.transport;
    const stderrTail: string[] = [];
    let transport: Transport;
    if (t.type === 'stdio') {
      const stdio = new StdioClientTransport({ command: t.command, args: [...t.args], env: { ...t.env }, cwd: t.cwd, stderr: 'pipe' });
      let partial = '';
      // Always drained: a full stderr pipe would block the server.
      stdio.stderr?.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        if (partial.length > 4096) partial = partial.slice(-4096);
        for (const raw of lines) {
          const line = raw.trimEnd().slice(0, 1000);
          if (!line) continue;
          stderrTail.push(line);
          if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
          this.options.logger.debug?.({ alias: this.alias, stderr: this.options.redactor.redact(line) }, 'MCP server stderr');
        }
      });
      transport = stdio;
    } else {
      const requestInit = { headers: { ...t.headers } };
      transport =
        t.type === 'sse'
          ? new SSEClientTransport(new URL(t.url), { requestInit })
          : new StreamableHTTPClientTransport(new URL(t.url), { requestInit, reconnectionOptions: HTTP_STREAM_RECONNECTION });
    }
    const client = new Client(this.options.clientInfo, { capabilities: {} });
    return { client, transport, stderrTail };
  }

  /** Follows `tools/list` pagination to the end. */
  private async listAll(client: Client, timeout: number): Promise<Tool[]> {
    if (!client.getServerCapabilities()?.tools) return [];
    const tools: Tool[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout });
      tools.push(...res.tools);
      cursor = res.nextCursor;
      if (cursor === undefined || cursor === '') return tools;
      if (cursors.has(cursor)) throw new Error(`tools/list returned the cursor ${JSON.stringify(cursor)} twice`);
      cursors.add(cursor);
    }
    throw new Error(`tools/list did not end after ${MAX_PAGES} pages`);
  }

  /** Re-reads the tool list after `list_changed`; notifications that arrive meanwhile coalesce into one more pass. */
  private relist(): void {
    if (this.relisting) {
      this.relistAgain = true;
      return;
    }
    this.relisting = (async () => {
      do {
        this.relistAgain = false;
        const session = this.session;
        if (!session || session.dropped) return;
        const tools = await this.listAll(session.client, this.server.connectTimeoutMs);
        if (session === this.session) this.options.onTools(tools, 'list_changed');
      } while (this.relistAgain);
    })()
      .catch((err: unknown) => this.options.logger.warn({ alias: this.alias, error: this.options.redactor.message(err) }, 'MCP tool list refresh failed'))
      .finally(() => {
        this.relisting = undefined;
      });
  }

  /** The server went away on its own (process exit, connection closed). */
  private onClosed(session: Session): void {
    if (session.pid !== undefined) untrackChild(session.pid);
    if (session.dropped) return;
    session.dropped = true;
    if (this.session !== session) return; // still connecting: open() reports the failure
    this.session = undefined;
    if (this.closed) return;
    const stable = Date.now() - session.startedAt >= this.options.backoff.stableAfterMs;
    // A server that dies right after starting counts as failing, so a crash loop backs off too.
    this.failures = stable ? 0 : this.failures + 1;
    this.state = 'disconnected';
    const delay = this.scheduleReconnect();
    this.options.logger.warn(
      { alias: this.alias, endpoint: endpointOf(this.server), pid: session.pid, reconnectInMs: delay, stderr: this.options.redactor.redact(session.stderrTail.slice(-5).join('\n')) },
      'MCP server disconnected; reconnecting',
    );
  }

  /**
   * HTTP transports report a broken event stream only as an error (there is no process to watch):
   * ask the server whether it is still there, and start over with backoff when it is not.
   */
  private onTransportError(session: Session, err: Error): void {
    this.options.logger.debug?.({ alias: this.alias, error: this.options.redactor.message(err) }, 'MCP transport error');
    if (session.dropped || session.probing || this.session !== session || this.server.transport.type === 'stdio') return;
    if (!/SSE stream disconnected|Maximum reconnection attempts|SSE error/i.test(err.message)) return;
    session.probing = true;
    session.client
      .ping({ timeout: PROBE_TIMEOUT_MS })
      .then(
        () => undefined,
        (probeErr: unknown) => this.drop(session, probeErr),
      )
      .finally(() => {
        session.probing = false;
      });
  }

  /** Gives up on a session after a transport failure, so the next call connects afresh. */
  private drop(session: Session, err: unknown): void {
    if (session.dropped) return;
    session.dropped = true;
    if (this.session === session) {
      this.session = undefined;
      this.state = 'disconnected';
      this.scheduleReconnect();
    }
    this.options.logger.warn({ alias: this.alias, endpoint: endpointOf(this.server), error: this.options.redactor.message(err) }, 'MCP connection lost');
    void this.dispose(session, true);
  }

  private async dispose(session: Session, terminate: boolean): Promise<void> {
    session.dropped = true;
    if (terminate && session.transport instanceof StreamableHTTPClientTransport && session.transport.sessionId) {
      // Best effort: tell the server to free the session; never wait long for a server that is gone.
      await withDeadline(session.transport.terminateSession(), Date.now() + 1000, undefined, () => new Error('timeout')).catch(() => undefined);
    }
    await session.client.close().catch(() => undefined);
    if (session.pid !== undefined) untrackChild(session.pid);
  }

  /** Schedules a background reconnect with exponential backoff and jitter; returns the delay. */
  private scheduleReconnect(): number {
    clearTimeout(this.reconnectTimer);
    const { initialMs, maxMs } = this.options.backoff;
    const base = Math.min(maxMs, initialMs * 2 ** Math.min(this.failures, 20));
    const delay = Math.round(base * (0.8 + Math.random() * 0.4));
    this.nextAttemptAt = Date.now() + delay;
    this.reconnectTimer = setTimeout(() => {
      if (this.closed || this.connecting || (this.session && !this.session.dropped)) return;
      this.connect().catch(() => undefined); // logged in connect()
    }, delay);
    this.reconnectTimer.unref();
    return delay;
  }
}
