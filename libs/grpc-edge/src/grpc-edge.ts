/**
 * The gRPC edge shared by ToolHub's services: decodes requests defensively (a malformed or oversized
 * message is INVALID_ARGUMENT, never a crash), continues the caller's trace, and maps ToolHubError
 * to a gRPC status plus a `toolhub-error-bin` trailer holding the structured ErrorInfo.
 */
import {
  type handleUnaryCall,
  Metadata,
  type sendUnaryData,
  type ServerErrorResponse,
  type ServerUnaryCall,
  status as GrpcStatus,
} from '@grpc/grpc-js';
import { type Context, context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { type Authenticator, hasRole, LOCAL_PRINCIPAL, type Principal, type Role } from '@toolhub/auth';
import { boundedError, ErrorInfo, GRPC_ERROR_TRAILER, HEADER_REQUEST_ID, type RunProgress, ToolHubError, toToolHubError, withoutStackTrace } from '@toolhub/contracts';
import { randomUUID } from 'node:crypto';

import { abortReason, CallAbort, type EdgeAbortState } from './call-aborts';
import { callerTraceHeaders, metadataGetter, tracerProviderRegistered } from './tracing';

/** Marks a request that could not be decoded; handlers reject it before doing anything. */
export const DECODE_ERROR = Symbol('toolhub.decodeError');
export type Decoded<T> = T | { [DECODE_ERROR]: ToolHubError };

const tracer = trace.getTracer('@toolhub/grpc-edge');

/** The `signal` of an edge context: its CallAbort's, made on first read (see CallAbort). */
const LAZY_SIGNAL: PropertyDescriptor = {
  get(this: EdgeAbortState): AbortSignal {
    return this.callAbort.signal;
  },
  enumerable: true,
  configurable: true,
};

/** Per-call context from the edge. */
export interface CallContext {
  /** Absolute deadline of the caller, epoch ms; Infinity when the caller set none. */
  deadline: number;
  requestId: string;
  /**
   * Aborted when the caller cancels the call or goes away (grpc-js `cancelled`), so work nobody
   * waits for can stop. Absent outside the gRPC edge.
   */
  signal?: AbortSignal;
  /** When the call reached the edge, epoch ms: timeouts count from here, queueing included. */
  arrivedUnixMs?: number;
  /**
   * Who is calling, from the credentials the edge checked. Absent for in-process calls (warm
   * start, tests); treat absent as {@link LOCAL_PRINCIPAL} (see `principalOf`).
   */
  principal?: Principal;
  /**
   * W3C trace headers of the call's server span (`traceparent`, and `tracestate`/`baggage` when
   * present), for requests the call sends on: without an async context manager (see
   * @toolhub/telemetry `asyncContext`) the active span does not follow the call, so it is passed on
   * explicitly. Where no tracer provider is registered (nothing recorded), the edge starts no span
   * and these are the caller's own trace headers, unchanged; absent when the caller sent none.
   */
  traceHeaders?: Readonly<Record<string, string>>;
  /**
   * Called with each progress update of the call's tool, when the door can pass progress on
   * (MCP `progressToken`, a streaming RPC, an async run). Absent when nobody listens: adapters are
   * then not asked for progress at all.
   */
  onProgress?: (update: RunProgress) => void;
}

/** The principal of a call: the authenticated one, or the local principal for in-process calls. */
export function principalOf(call: Pick<CallContext, 'principal'>): Principal {
  return call.principal ?? LOCAL_PRINCIPAL;
}

type MethodDefinition = { path: string; requestDeserialize: (b: Buffer) => unknown };

/** Options of {@link guardedServiceDefinition}. */
export interface GuardOptions {
  /**
   * Asked before a request of `method` (the service definition's key, e.g. `runTool`) is decoded:
   * an error answers the call at once, before decoding and authentication (load shedding).
   */
  refuseEarly?: (method: string) => Error | undefined;
  /**
   * Asked with the raw request bytes of `method` before they are decoded (after `refuseEarly` and
   * the size check): an error answers the call at once. For checks whose cost must not depend on
   * what decoding would build, e.g. counting a Struct's entries on the wire.
   */
  precheck?: (method: string, buf: Buffer) => Error | undefined;
}

/**
 * A service definition with defensive request decoders: size checked against `maxMessageBytes`,
 * decode failures turned into a clear INVALID_ARGUMENT, and optionally calls refused before any
 * work at all ({@link GuardOptions.refuseEarly}).
 */
export function guardedServiceDefinition<S extends Record<string, MethodDefinition>>(service: S, maxMessageBytes: number, options: GuardOptions = {}): S {
  const guarded = { ...service } as Record<string, unknown>;
  for (const [method, def] of Object.entries(service)) {
    guarded[method] = {
      ...def,
      requestDeserialize: (buf: Buffer): unknown => {
        // Shed before anything per call (decoding, authentication): the answer is the same for every caller.
        const refused = options.refuseEarly?.(method);
        if (refused) return { [DECODE_ERROR]: refused };
        if (buf.length > maxMessageBytes) return { [DECODE_ERROR]: messageTooLargeError(def.path, buf.length, maxMessageBytes) };
        const rejected = options.precheck?.(method, buf);
        if (rejected) return { [DECODE_ERROR]: rejected };
        try {
          return def.requestDeserialize(buf);
        } catch (err) {
          const reason = (err as Error).message;
          const advice = /recursion/i.test(reason) ? 'the arguments nest too deeply; flatten them' : 'check that arguments is a JSON object and strings are valid UTF-8';
          return {
            [DECODE_ERROR]: ToolHubError.invalidArgument(
              `The ${def.path} request could not be decoded as toolhub.v1 protobuf (${reason}); ${advice}.`,
              [{ field: '/', message: 'malformed message' }],
            ),
          };
        }
      },
    };
  }
  return guarded as S;
}

/** The INVALID_ARGUMENT for a request message over the limit (the decoder's and the connection guard's, from the declared length). */
export function messageTooLargeError(path: string, bytes: number, maxMessageBytes: number): ToolHubError {
  return ToolHubError.invalidArgument(
    `The ${path.replace(/^\//, '')} request is ${bytes} bytes; the limit is ${maxMessageBytes} bytes. Send smaller arguments, e.g. pass a file path instead of file contents.`,
    [{ field: '/', message: 'message too large', expected: `at most ${maxMessageBytes} bytes` }],
  );
}

/** The status message of a ToolHub error: its message, with its suggestions when it does not name them. */
export function statusDetails(e: ToolHubError): string {
  if (e.suggestions.length && !e.message.includes(e.suggestions[0]!)) return `${e.message} Suggestions: ${e.suggestions.join(', ')}.`;
  return e.message;
}

/**
 * The gRPC status error for any failure, with the ErrorInfo trailer. Bounded (see boundedError):
 * errors may quote a huge request, and oversized trailers would cost the caller its connection.
 */
export function toGrpcError(err: unknown): ServerErrorResponse {
  const e = boundedError(err);
  const metadata = new Metadata();
  metadata.set(GRPC_ERROR_TRAILER, Buffer.from(ErrorInfo.encode(e.toErrorInfo()).finish()));
  const details = statusDetails(e);
  // grpc-js reads code, details and metadata; the stack of this carrier would never be seen.
  return withoutStackTrace(() => Object.assign(new Error(details), { code: e.grpcStatus, details, metadata }));
}

/** The trace headers of `ctx` (the call's server span) for requests the call sends on. */
function traceHeadersOf(ctx: Context): Record<string, string> {
  const headers: Record<string, string> = {};
  propagation.inject(ctx, headers);
  return headers;
}

/**
 * Told about every unary call that failed, refused ones included (no credentials, wrong role):
 * `principal` is undefined when authentication itself failed. For audit trails (registry admin).
 */
export type FailureObserver = (failure: { method: string; error: ToolHubError; principal: Principal | undefined; requestId: string }) => void;

/** Told about every finished unary call: method path, gRPC status code, duration in seconds. */
export type RpcObserver = (method: string, code: number, seconds: number) => void;
let rpcObserver: RpcObserver | undefined;

/**
 * Registers the one observer of finished calls (the process's metrics; `undefined` removes it).
 * One function call per RPC when set, nothing when not: the hot path stays cheap.
 */
export function observeRpcs(observer: RpcObserver | undefined): void {
  rpcObserver = observer;
}

/** Who may call a method: the credentials check, and the roles of which the principal needs one. */
export interface EdgeAuth {
  authenticator: Authenticator;
  /** Any one of these roles admits the call (`admin` holds every role); empty or absent: any principal. */
  roles?: readonly Role[];
}

/** The credentials a call presented: authorization / x-api-key metadata and a verified client certificate. */
function credentialsOf(call: Pick<ServerUnaryCall<unknown, unknown>, 'metadata' | 'getAuthContext'>) {
  const header = (name: string) => {
    const v = call.metadata.get(name)[0];
    return v === undefined ? undefined : String(v);
  };
  // Only reached when the server requires client certificates signed by its client CA (see serve.ts).
  const cn = call.getAuthContext?.()?.sslPeerCertificate?.subject?.CN;
  return { authorization: header('authorization'), apiKey: header('x-api-key'), certificateSubject: typeof cn === 'string' ? cn : undefined };
}

function admit(principal: Principal, method: string, roles: readonly Role[] | undefined): Principal {
  if (roles?.length && !roles.some((r) => hasRole(principal, r))) {
    throw new ToolHubError(
      'permission_denied',
      `${method} needs the ${roles.join(' or ')} role; ${principal.id} has ${principal.roles.join(', ') || 'no roles'}. Ask an admin for a credential with that role.`,
    );
  }
  return principal;
}

/** The principal of a call, or the UNAUTHENTICATED / PERMISSION_DENIED error. Sync when it can be (API keys, cached JWTs). */
export function principalFor(call: Pick<ServerUnaryCall<unknown, unknown>, 'metadata' | 'getAuthContext'>, method: string, auth: EdgeAuth | undefined, seen?: (p: Principal) => void): Principal | Promise<Principal> {
  if (!auth?.authenticator.enabled) return LOCAL_PRINCIPAL;
  const p = auth.authenticator.authenticate(credentialsOf(call));
  // `seen` learns who it is before the role check (a refusal names the principal it refused).
  return p instanceof Promise ? p.then((x) => (seen?.(x), admit(x, method, auth.roles))) : (seen?.(p), admit(p, method, auth.roles));
}

/**
 * Wraps a service method as a grpc-js unary handler with authentication (when `auth` is given and
 * enabled), tracing and error mapping. The principal reaches `fn` as `call.principal`.
 */
export function unary<Req, Res>(method: string, fn: (req: Req, call: CallContext) => Promise<Res> | Res, auth?: EdgeAuth, onFailure?: FailureObserver): handleUnaryCall<Decoded<Req>, Res> {
  return (call: ServerUnaryCall<Decoded<Req>, Res>, callback: sendUnaryData<Res>) => {
    const arrivedUnixMs = Date.now();
    // The call's AbortSignal is made only if something reads `signal` (see CallAbort).
    const abort = new CallAbort();
    const rawDeadline = call.getDeadline();
    const deadline = rawDeadline instanceof Date ? rawDeadline.getTime() : Number.isFinite(rawDeadline) ? Number(rawDeadline) : Infinity;
    const onCancelled = (): void => abort.abort(abortReason(arrivedUnixMs, deadline));
    // `on`, not `once`: abort() acts once anyway, and `once` wraps the listener in a closure per call.
    call.on('cancelled', onCancelled);
    const requestId = String(call.metadata.get(HEADER_REQUEST_ID)[0] ?? randomUUID());
    const started = rpcObserver ? performance.now() : 0;
    /** Serves the call; in `span`, whose context is `active`, when this process traces. */
    const serve = (span: Span | undefined, active: Context) => {
      const finish = (err: unknown, res?: Res) => {
        // grpc-js reports every stream's close as 'cancelled', answered calls included: once the
        // answer is out there is nothing left to cancel (and no Error to build per call for it).
        call.removeListener('cancelled', onCancelled);
        let code: number = GrpcStatus.OK;
        if (err) {
          const grpcErr = toGrpcError(err);
          code = grpcErr.code ?? GrpcStatus.UNKNOWN;
          span?.setStatus({ code: SpanStatusCode.ERROR, message: grpcErr.details });
          span?.setAttribute('rpc.grpc.status_code', code);
          callback(grpcErr);
        } else {
          callback(null, res);
        }
        span?.end();
        rpcObserver?.(method, code, (performance.now() - started) / 1000);
      };
      const req = call.request;
      if (req !== null && typeof req === 'object' && DECODE_ERROR in req) {
        finish(req[DECODE_ERROR]);
        return;
      }
      const traceHeaders = span ? traceHeadersOf(active) : callerTraceHeaders(call.metadata);
      let who: Principal | undefined;
      const failed = (err: unknown): void => {
        if (onFailure) {
          try {
            onFailure({ method, error: toToolHubError(err), principal: who, requestId });
          } catch {
            // An observer's failure must not change the answer.
          }
        }
        finish(err);
      };
      const serveAs = (principal: Principal): void => {
        who = principal;
        if (span && principal !== LOCAL_PRINCIPAL) span.setAttribute('enduser.id', principal.id);
        // `signal` added as an accessor with one shared getter: the object keeps V8's fast
        // properties (a literal with a getter is a dictionary, slow to build and to read), costs
        // ~0.1 µs where an AbortController per call cost ~2 (micro-benchmarks, 2026-11-29), and a
        // spread copy of the context still gets the signal (materialised).
        const ctx = { deadline, requestId, callAbort: abort, arrivedUnixMs, principal, traceHeaders } as CallContext & EdgeAbortState;
        Object.defineProperty(ctx, 'signal', LAZY_SIGNAL);
        abort.context = ctx;
        const res = fn(req as Req, ctx);
        if (res instanceof Promise) res.then((r) => finish(null, r), failed);
        else finish(null, res);
      };
      // Synchronous where the principal is known at once (local mode, API keys, cached JWTs): no
      // promise chain of its own per call, only the handler's. Whatever throws is answered the same.
      const run = (): void => {
        try {
          const principal = principalFor(call, method, auth, onFailure && ((p) => (who = p)));
          if (principal instanceof Promise) {
            principal.then((p) => {
              try {
                serveAs(p);
              } catch (err) {
                failed(err);
              }
            }, failed);
          } else serveAs(principal);
        } catch (err) {
          failed(err);
        }
      };
      if (span) context.with(active, run);
      else run();
    };
    // Nothing recorded in this process: no span, and the caller's trace context goes on as it came.
    if (!tracerProviderRegistered()) {
      serve(undefined, ROOT_CONTEXT);
      return;
    }
    const parent = propagation.extract(ROOT_CONTEXT, call.metadata, metadataGetter);
    tracer.startActiveSpan(method, { kind: SpanKind.SERVER, attributes: { 'rpc.system': 'grpc', 'rpc.method': method } }, parent, (span) => serve(span, trace.setSpan(parent, span)));
  };
}

