/**
 * The console's JSON layer: a JSON body is decoded with the ts-proto `fromJSON` of the RPC's request
 * message, sent as a real gRPC call to ToolHub's own APIs (RegistryAdmin on the registry, ToolHub on
 * the dispatcher) with the signed-in user's credential, and the answer encoded with `toJSON`. The
 * servers do every check (roles, validation, audit) exactly as for grpcurl or the CLI: the console
 * never reaches the database and adds no second set of rules.
 */
import { type ChannelCredentials, type ChannelOptions, Client, type ClientReadableStream, credentials as grpcCredentials, Metadata, type ServiceError, status as GrpcStatus } from '@grpc/grpc-js';
import * as contracts from '@toolhub/contracts';
import { ErrorInfo, GRPC_ERROR_TRAILER, HEADER_REQUEST_ID, RegistryAdminService, ToolHubError, ToolHubService } from '@toolhub/contracts';

import { ConsoleError } from './errors';

/** The two services the console speaks. */
export const CONSOLE_SERVICES = { 'toolhub.v1.RegistryAdmin': 'admin', 'toolhub.v1.ToolHub': 'agent' } as const;
export type ConsoleServiceName = keyof typeof CONSOLE_SERVICES;

interface JsonCodec {
  fromJSON(object: unknown): unknown;
  toJSON(message: never): unknown;
}

interface UnaryMethod {
  path: string;
  /** Server streaming (WatchRun, RunToolStream): relayed as a stream of JSON messages. */
  stream: boolean;
  target: 'admin' | 'agent';
  serialize: (value: never) => Buffer;
  deserialize: (value: Buffer) => unknown;
  request: JsonCodec;
  response: JsonCodec;
}

type MethodDefs = Record<string, { path: string; requestStream: boolean; responseStream: boolean; requestSerialize: (v: never) => Buffer; responseDeserialize: (b: Buffer) => unknown }>;

/**
 * Every unary and server-streaming RPC of both services, by `Service/Method`; each request/response
 * type is named `<Method>Request`/`<Method>Response` in the contract. Client streams have no JSON form.
 */
function methodTable(): Map<string, UnaryMethod> {
  const codecs = contracts as unknown as Record<string, JsonCodec | undefined>;
  const table = new Map<string, UnaryMethod>();
  const add = (defs: MethodDefs, target: 'admin' | 'agent') => {
    for (const def of Object.values(defs)) {
      if (def.requestStream) continue; // a client stream has no single JSON request
      const key = def.path.slice(1);
      const method = key.split('/')[1]!;
      const request = codecs[`${method}Request`];
      const response = codecs[`${method}Response`];
      if (!request?.fromJSON || !response?.toJSON) continue;
      table.set(key, { path: def.path, stream: def.responseStream, target, serialize: def.requestSerialize, deserialize: def.responseDeserialize, request, response });
    }
  };
  add(RegistryAdminService as unknown as MethodDefs, 'admin');
  add(ToolHubService as unknown as MethodDefs, 'agent');
  return table;
}

export interface GrpcBridgeOptions {
  /** host:port of the RegistryAdmin gRPC API. */
  adminAddress: string;
  /** host:port of the agent gRPC API (toolhub.v1.ToolHub); absent: those calls answer UNAVAILABLE. */
  agentAddress?: string;
  /** @default insecure (loopback); TLS (see api-tls.ts) when the APIs serve it */
  channelCredentials?: ChannelCredentials;
  /** gRPC channel options (e.g. the name to check in the APIs' certificate). */
  channelOptions?: ChannelOptions;
  /** Deadline of each call. @default 60000 */
  deadlineMs?: number;
  /** Deadline of a stream (WatchRun): the page opens a new one when it ends before the run. @default 900000 */
  streamDeadlineMs?: number;
}

/** Where a relayed stream's messages go. */
export interface StreamHandlers {
  message(json: unknown): void;
  /** Called once: without an error when the stream ended normally or was cancelled. */
  end(error?: JsonAnswer): void;
}

/** A JSON answer: HTTP status and body. */
export interface JsonAnswer {
  status: number;
  body: unknown;
}

const HTTP_OF_GRPC: Record<number, number> = {
  [GrpcStatus.INVALID_ARGUMENT]: 400,
  [GrpcStatus.OUT_OF_RANGE]: 400,
  [GrpcStatus.UNAUTHENTICATED]: 401,
  [GrpcStatus.PERMISSION_DENIED]: 403,
  [GrpcStatus.NOT_FOUND]: 404,
  [GrpcStatus.ALREADY_EXISTS]: 409,
  [GrpcStatus.ABORTED]: 409,
  [GrpcStatus.FAILED_PRECONDITION]: 412,
  [GrpcStatus.RESOURCE_EXHAUSTED]: 429,
  [GrpcStatus.UNAVAILABLE]: 503,
  [GrpcStatus.DEADLINE_EXCEEDED]: 504,
};

/** The JSON error body: the gRPC code and the server's LLM-ready message and details. */
export function errorBody(grpcCode: number, err: ToolHubError): JsonAnswer {
  const info = ErrorInfo.toJSON(err.toErrorInfo()) as Record<string, unknown>;
  return { status: HTTP_OF_GRPC[grpcCode] ?? 500, body: { error: { ...info, code: err.code, grpcCode, grpcStatus: GrpcStatus[grpcCode] ?? 'UNKNOWN' } } };
}

function fromServiceError(err: ServiceError): JsonAnswer {
  const bin = err.metadata?.get(GRPC_ERROR_TRAILER)[0];
  const thErr = Buffer.isBuffer(bin) ? ToolHubError.fromErrorInfo(ErrorInfo.decode(bin)) : new ToolHubError(err.code === GrpcStatus.UNAVAILABLE ? 'unavailable' : 'internal', err.details || err.message);
  return errorBody(err.code, thErr);
}

/** Sends JSON-described calls to the real gRPC services. */
export class GrpcBridge {
  private readonly methods = methodTable();
  private readonly clients: { admin: Client; agent?: Client };
  private readonly deadlineMs: number;
  private readonly streamDeadlineMs: number;
  /** Streams open now, cancelled on close. */
  private readonly streams = new Set<ClientReadableStream<unknown>>();

  constructor(options: GrpcBridgeOptions) {
    const creds = options.channelCredentials ?? grpcCredentials.createInsecure();
    const opts = options.channelOptions ?? {};
    this.clients = { admin: new Client(options.adminAddress, creds, opts), agent: options.agentAddress ? new Client(options.agentAddress, creds, opts) : undefined };
    this.deadlineMs = options.deadlineMs ?? 60_000;
    this.streamDeadlineMs = options.streamDeadlineMs ?? 15 * 60_000;
  }

  /** `Service/Method` names the bridge serves (both services' unary and server-streaming RPCs). */
  get methodNames(): string[] {
    return [...this.methods.keys()];
  }

  /** Whether `service/method` is a server-streaming RPC the bridge relays (see {@link GrpcBridge.openStream}). */
  isStream(service: string, method: string): boolean {
    return this.methods.get(`${service}/${method}`)?.stream ?? false;
  }

  /** The method, its client and the decoded request; or the JSON error to answer instead. */
  private prepare(service: string, method: string, body: unknown, credential: string | undefined, requestId: string): { error: JsonAnswer } | { m: UnaryMethod; client: Client; request: unknown; metadata: Metadata } {
    const m = this.methods.get(`${service}/${method}`);
    if (!m) {
      const known = this.methodNames.filter((n) => n.startsWith(`${service}/`)).map((n) => n.split('/')[1]);
      const err = new ConsoleError('not_found', `${service}/${method} is not an RPC of toolhub.v1.RegistryAdmin or toolhub.v1.ToolHub.${known.length ? ` ${service} has: ${known.join(', ')}.` : ` Use /api/toolhub.v1.RegistryAdmin/<Method> or /api/toolhub.v1.ToolHub/<Method>.`}`);
      return { error: errorBody(GrpcStatus.NOT_FOUND, err.toToolHubError()) };
    }
    const client = this.clients[m.target];
    if (!client) return { error: errorBody(GrpcStatus.UNAVAILABLE, ToolHubError.unavailable(`The agent API (toolhub.v1.ToolHub) is not configured for this console: set TOOLHUB_CONSOLE_AGENT_URL to the dispatcher's gRPC address.`)) };
    let request: unknown;
    try {
      if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Error('the body must be a JSON object (the request message in proto JSON)');
      request = m.request.fromJSON(body);
    } catch (err) {
      return { error: errorBody(GrpcStatus.INVALID_ARGUMENT, ToolHubError.invalidArgument(`The ${method} request is not valid proto JSON: ${(err as Error).message}.`, [{ field: '/', message: 'malformed request' }])) };
    }
    const metadata = new Metadata();
    if (credential) metadata.set('authorization', `Bearer ${credential}`);
    metadata.set(HEADER_REQUEST_ID, requestId);
    return { m, client, request, metadata };
  }

  /**
   * Calls `service/method` with `body` (the request message as proto JSON) and `credential`
   * (an API key or bearer token, sent as `authorization: Bearer …`; none in local mode).
   */
  call(service: string, method: string, body: unknown, credential: string | undefined, requestId: string): Promise<JsonAnswer> {
    const p = this.prepare(service, method, body, credential, requestId);
    if ('error' in p) return Promise.resolve(p.error);
    const { m, client, request, metadata } = p;
    if (m.stream) {
      return Promise.resolve(errorBody(GrpcStatus.INVALID_ARGUMENT, ToolHubError.invalidArgument(`${service}/${method} is a server stream: open it with openStream (the console's /api path answers it as Server-Sent Events).`, [{ field: 'method', message: 'a stream' }])));
    }
    return new Promise((resolve) => {
      client.makeUnaryRequest(m.path, m.serialize, m.deserialize, request as never, metadata, { deadline: Date.now() + this.deadlineMs }, (err, res) => {
        if (err) resolve(fromServiceError(err));
        else resolve({ status: 200, body: m.response.toJSON(res as never) });
      });
    });
  }

  /**
   * Opens the server-streaming RPC `service/method`: each message goes to `on.message` as proto
   * JSON, then `on.end` once — with the JSON error when the stream failed. Answers the JSON error
   * at once (and opens nothing) when the method or the request is wrong. `cancel` ends the call.
   */
  openStream(service: string, method: string, body: unknown, credential: string | undefined, requestId: string, on: StreamHandlers): { error: JsonAnswer } | { cancel(): void } {
    const p = this.prepare(service, method, body, credential, requestId);
    if ('error' in p) return p;
    const { m, client, request, metadata } = p;
    if (!m.stream) return { error: errorBody(GrpcStatus.INVALID_ARGUMENT, ToolHubError.invalidArgument(`${service}/${method} is unary: use call.`, [{ field: 'method', message: 'unary' }])) };
    const call = client.makeServerStreamRequest(m.path, m.serialize, m.deserialize, request as never, metadata, { deadline: Date.now() + this.streamDeadlineMs });
    let ended = false;
    let cancelled = false;
    const end = (error?: JsonAnswer) => {
      if (ended) return;
      ended = true;
      this.streams.delete(call);
      on.end(error);
    };
    this.streams.add(call);
    call.on('data', (msg: unknown) => !ended && on.message(m.response.toJSON(msg as never)));
    call.on('error', (err: ServiceError) => end(err.code === GrpcStatus.CANCELLED && cancelled ? undefined : fromServiceError(err)));
    call.on('end', () => end());
    return {
      cancel: () => {
        cancelled = true;
        call.cancel();
        end();
      },
    };
  }

  close(): void {
    for (const c of [...this.streams]) c.cancel();
    this.clients.admin.close();
    this.clients.agent?.close();
  }
}
