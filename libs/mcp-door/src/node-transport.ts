/**
 * MCP Streamable HTTP, server side, written against Node's `http` objects: the same protocol and
 * answers as the SDK's `StreamableHTTPServerTransport` (sessions, SSE or JSON answers, the GET
 * stream, DELETE), without its conversion of every request to a Web `Request`/`Response` and
 * stream (`@hono/node-server`), which cost the door about as much CPU per call as the whole gRPC
 * path. The SDK's `Server` sits on it unchanged (it is an SDK `Transport`). Not implemented:
 * resumability (an event store and `Last-Event-ID`), which the door does not offer.
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type MessageExtraInfo,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface NodeStreamableHttpOptions {
  /** Session ids for a stateful transport; absent: stateless (one transport per request). */
  sessionIdGenerator?: () => string;
  /** Answer POSTs with one JSON body instead of an SSE stream. */
  enableJsonResponse?: boolean;
  onsessioninitialized?: (sessionId: string) => void;
  onsessionclosed?: (sessionId: string) => void;
}

/** One POST's answer: its open response, the requests it carries and the responses collected so far. */
interface PostStream {
  res: ServerResponse;
  ids: RequestId[];
  responses: Map<RequestId, JSONRPCMessage>;
  /**
   * `json`: one JSON body once every answer is ready (enableJsonResponse). `sse`: an SSE stream.
   * `pending`: not decided yet — the answer goes as JSON if it is the first thing the POST's
   * requests produce, as an SSE stream if a notification (progress, list_changed) comes first.
   */
  mode: 'json' | 'sse' | 'pending';
}

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' };

function sseEvent(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

function jsonError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

export class NodeStreamableHttpTransport implements Transport {
  sessionId?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  private initialized = false;
  private closed = false;
  private handled = false;
  /** Open POST answers by the id of each request they carry. */
  private readonly byRequest = new Map<RequestId, PostStream>();
  private standalone: ServerResponse | undefined;

  constructor(private readonly options: NodeStreamableHttpOptions = {}) {}

  async start(): Promise<void> {}

  /** Serves one HTTP request of this transport's session; `parsedBody` is the POST's JSON, already read. */
  async handleRequest(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    if (this.closed) return jsonError(res, 404, -32001, 'Session not found');
    if (!this.options.sessionIdGenerator && this.handled) throw new Error('Stateless transport cannot be reused across requests. Create a new transport per request.');
    this.handled = true;
    switch (req.method) {
      case 'POST':
        return this.post(req, res, parsedBody);
      case 'GET':
        return this.get(req, res);
      case 'DELETE':
        return this.delete(req, res);
      default:
        return jsonError(res, 405, -32000, 'Method not allowed.', { allow: 'GET, POST, DELETE' });
    }
  }

  private fail(res: ServerResponse, status: number, code: number, message: string): void {
    this.onerror?.(new Error(message));
    jsonError(res, status, code, message);
  }

  /** Session and protocol-version checks of every request but initialize; false when answered. */
  private checkSession(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.options.sessionIdGenerator) {
      if (!this.initialized) return this.fail(res, 400, -32000, 'Bad Request: Server not initialized'), false;
      const sid = req.headers['mcp-session-id'];
      if (!sid) return this.fail(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required'), false;
      if (sid !== this.sessionId) return this.fail(res, 404, -32001, 'Session not found'), false;
    }
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      const supported = SUPPORTED_PROTOCOL_VERSIONS.join(', ');
      return this.fail(res, 400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${supported})`), false;
    }
    return true;
  }

  private sessionHeader(): Record<string, string> {
    return this.sessionId !== undefined ? { 'mcp-session-id': this.sessionId } : {};
  }

  private async post(req: IncomingMessage, res: ServerResponse, parsedBody: unknown): Promise<void> {
    const accept = req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      return this.fail(res, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') return this.fail(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    let messages: JSONRPCMessage[];
    try {
      messages = (Array.isArray(parsedBody) ? parsedBody : [parsedBody]).map((m) => JSONRPCMessageSchema.parse(m));
    } catch {
      return this.fail(res, 400, -32700, 'Parse error: Invalid JSON-RPC message');
    }
    const extra: MessageExtraInfo = { requestInfo: { headers: req.headers } };
    if (messages.some(isInitializeRequest)) {
      if (this.initialized && this.sessionId !== undefined) return this.fail(res, 400, -32600, 'Invalid Request: Server already initialized');
      if (messages.length > 1) return this.fail(res, 400, -32600, 'Invalid Request: Only one initialization request is allowed');
      this.sessionId = this.options.sessionIdGenerator?.();
      this.initialized = true;
      if (this.sessionId !== undefined) this.options.onsessioninitialized?.(this.sessionId);
    } else if (!this.checkSession(req, res)) {
      return;
    }
    if (this.closed) return jsonError(res, 404, -32001, 'Session not found');
    const ids = messages.filter(isJSONRPCRequest).map((m) => m.id);
    if (ids.length === 0) {
      // Notifications and responses only: accepted, answered at once with no body.
      for (const m of messages) this.onmessage?.(m, extra);
      res.writeHead(202, this.sessionHeader()).end();
      return;
    }
    const stream: PostStream = { res, ids, responses: new Map(), mode: this.options.enableJsonResponse ? 'json' : 'pending' };
    for (const id of ids) this.byRequest.set(id, stream);
    // A client gone before its answers: nothing more is written there; the requests still finish.
    res.on('close', () => {
      for (const id of ids) if (this.byRequest.get(id) === stream) this.byRequest.delete(id);
    });
    for (const m of messages) this.onmessage?.(m, extra);
  }

  private get(req: IncomingMessage, res: ServerResponse): void {
    if (!(req.headers.accept ?? '').includes('text/event-stream')) return this.fail(res, 406, -32000, 'Not Acceptable: Client must accept text/event-stream');
    if (!this.checkSession(req, res)) return;
    if (this.standalone) return this.fail(res, 409, -32000, 'Conflict: Only one SSE stream is allowed per session');
    res.writeHead(200, { ...SSE_HEADERS, ...this.sessionHeader() });
    res.flushHeaders();
    this.standalone = res;
    res.on('close', () => {
      if (this.standalone === res) this.standalone = undefined;
    });
  }

  private async delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.checkSession(req, res)) return;
    if (this.sessionId !== undefined) this.options.onsessionclosed?.(this.sessionId);
    res.writeHead(200).end();
    await this.close();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const isResponse = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
    const requestId = isResponse ? message.id : options?.relatedRequestId;
    if (requestId === undefined) {
      if (isResponse) throw new Error('Cannot send a response on a standalone SSE stream unless resuming a previous client request');
      // Server-initiated: the session's GET stream, when the client opened one.
      if (this.standalone && !this.standalone.writableEnded) this.standalone.write(sseEvent(message));
      return;
    }
    const stream = this.byRequest.get(requestId);
    if (!stream) {
      // Its client went away: a notification is dropped; a response has nowhere to go.
      if (isResponse) throw new Error(`No connection established for request ID: ${String(requestId)}`);
      return;
    }
    if (!isResponse) {
      if (stream.mode === 'json' || stream.res.writableEnded) return;
      this.openSse(stream).write(sseEvent(message));
      return;
    }
    stream.responses.set(requestId, message);
    const last = stream.responses.size === stream.ids.length;
    if (last) for (const id of stream.ids) this.byRequest.delete(id);
    if (stream.res.writableEnded || stream.res.destroyed) return;
    if (stream.mode === 'sse' || (stream.mode === 'pending' && !last)) {
      // The last answer ends the stream in the same write.
      if (last) this.openSse(stream).end(sseEvent(message));
      else this.openSse(stream).write(sseEvent(message));
      return;
    }
    if (!last) return;
    // Nothing came before the answers: one JSON body, which clients read for less than a stream.
    const answers = stream.ids.map((id) => stream.responses.get(id));
    const body = JSON.stringify(answers.length === 1 ? answers[0] : answers);
    stream.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...this.sessionHeader() });
    stream.res.end(body);
  }

  /** The POST's answer as an SSE stream, its headers written the first time. */
  private openSse(stream: PostStream): ServerResponse {
    if (stream.mode !== 'sse') {
      stream.mode = 'sse';
      stream.res.writeHead(200, { ...SSE_HEADERS, ...this.sessionHeader() });
    }
    return stream.res;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const stream of new Set(this.byRequest.values())) if (!stream.res.writableEnded) stream.res.end();
    this.byRequest.clear();
    if (this.standalone && !this.standalone.writableEnded) this.standalone.end();
    this.standalone = undefined;
    this.onclose?.();
  }
}
