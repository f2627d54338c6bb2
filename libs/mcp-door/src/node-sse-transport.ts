/**
 * MCP HTTP+SSE (the 2024-11-05 transport, which the spec keeps as the backwards-compatible path
 * for older hosts), server side, on Node's `http` objects like node-transport.ts. A GET opens the
 * session's event stream; its first event, `endpoint`, names the URL the client POSTs every message
 * to; each POST is answered 202 at once and every server message (responses, progress,
 * list_changed, task notifications) goes out on the one stream. The same protocol as the SDK's
 * deprecated `SSEServerTransport`, without its second read of the body (`raw-body`): the door has
 * already read, sized and parsed it. Closing the stream ends the session (the SDK server then
 * aborts its in-flight requests, so their runs are cancelled down to the adapter).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema, type MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import type { IncomingMessage, ServerResponse } from 'node:http';

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' };

function jsonError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return;
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * A JSON-RPC request the SDK's `JSONRPCRequestSchema` (a strict object: `jsonrpc` "2.0", an `id`
 * string or safe integer, a `method` string, `params` an object) accepts, checked without zod; params
 * with `_meta` (whose fields zod checks) and everything else take the schema's path.
 */
export function isPlainRequest(m: unknown): boolean {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) return false;
  const r = m as Record<string, unknown>;
  for (const k in r) if (k !== 'jsonrpc' && k !== 'id' && k !== 'method' && k !== 'params') return false;
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') return false;
  if (typeof r.id !== 'string' && !Number.isSafeInteger(r.id)) return false;
  const p = r.params;
  if (p === undefined) return true;
  return p !== null && typeof p === 'object' && !Array.isArray(p) && (p as Record<string, unknown>)._meta === undefined;
}

export class NodeSseTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  private stream: ServerResponse | undefined;
  private closed = false;
  private dispatchRequest: ((message: JSONRPCMessage, extra: MessageExtraInfo) => void) | undefined;

  /**
   * @param res the GET's response: the session's event stream
   * @param endpoint the path messages are POSTed to; `?sessionId=<id>` is appended
   */
  constructor(
    private readonly res: ServerResponse,
    private readonly endpoint: string,
    readonly sessionId: string,
  ) {}

  /** Writes the stream's headers and the `endpoint` event (called by the SDK server's `connect`). */
  async start(): Promise<void> {
    if (this.stream || this.closed) throw new Error('NodeSseTransport already started');
    this.res.writeHead(200, SSE_HEADERS);
    this.res.write(`event: endpoint\ndata: ${this.endpoint}?sessionId=${encodeURIComponent(this.sessionId)}\n\n`);
    this.stream = this.res;
    this.res.on('close', () => void this.close());
    // A client gone while the session was being set up: its 'close' has already fired.
    if (this.res.destroyed) void this.close();
  }

  /**
   * Hands requests that pass {@link isPlainRequest} to `server`'s own request entry, which the SDK
   * Protocol's `onmessage` reaches only after three zod type checks of the message (is it a result,
   * an error, a request) — on top of the door's own parse, four zod passes over every call. Left
   * unbound (everything through `onmessage`) when this SDK version has no such entry.
   */
  bindRequests(server: object): void {
    const onrequest = (server as { _onrequest?: unknown })._onrequest;
    if (typeof onrequest === 'function') this.dispatchRequest = (message, extra) => void onrequest.call(server, message, extra);
  }

  /** Whether the event stream is still open (messages POSTed now can be answered). */
  get open(): boolean {
    return this.stream !== undefined && !this.stream.writableEnded;
  }

  /**
   * One POSTed message, already read and parsed by the door: 202 and handed to the server, or a
   * JSON-RPC error (415 wrong Content-Type, 400 not a JSON-RPC message, 404 stream closed).
   */
  handlePost(req: IncomingMessage, res: ServerResponse, parsedBody: unknown): void {
    if (!this.open) return jsonError(res, 404, -32001, `Session not found: the event stream of session ${this.sessionId} has closed. Open a new one with GET on the SSE endpoint.`);
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') {
      this.onerror?.(new Error(`Unsupported content-type: ${type || '(none)'}`));
      return jsonError(res, 415, -32000, `Unsupported Media Type: POST one JSON-RPC message with Content-Type: application/json (got ${type || 'none'}).`);
    }
    const extra = { requestInfo: { headers: req.headers } };
    // Valid by construction (see isPlainRequest): straight to the server's request handling.
    const direct = this.dispatchRequest !== undefined && isPlainRequest(parsedBody);
    let message = parsedBody as JSONRPCMessage;
    if (!direct) {
      const parsed = JSONRPCMessageSchema.safeParse(parsedBody);
      if (!parsed.success) {
        this.onerror?.(parsed.error);
        return jsonError(res, 400, -32600, 'Invalid Request: not a JSON-RPC 2.0 request, notification or response (a request needs "method" and "id", a notification "method", a response "id" and "result" or "error").');
      }
      message = parsed.data;
    }
    // Accepted before it is handled: the answer goes out on the stream, whenever it is ready.
    res.writeHead(202, { 'content-length': '0' }).end();
    if (direct) this.dispatchRequest!(message, extra);
    else this.onmessage?.(message, extra);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.open) throw new Error('Not connected: the session\'s event stream has closed');
    this.stream!.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.stream && !this.stream.writableEnded) this.stream.end();
    this.stream = undefined;
    this.onclose?.();
  }
}
