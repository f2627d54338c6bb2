/**
 * What the MCP door needs from the dispatcher: its public methods, each taking the request and a
 * CallContext. Identity, grants, admission, deadlines, cancellation, events and error texts are
 * decided there, below the door; the door only translates MCP to these calls and back.
 */
import { ToolHubCallError } from '@toolhub/agent-kit';
import type { CallOptions, ToolHubApi } from '@toolhub/agent-kit';
import type { Principal } from '@toolhub/auth';
import {
  boundedError,
  type CancelRunRequest,
  type CancelRunResponse,
  GetPreloadSetRequest,
  type GetPreloadSetResponse,
  type GetToolInfoRequest,
  type GetRunRequest,
  type GetRunResponse,
  type GetToolInfoResponse,
  type ListProvidersResponse,
  type ListRunsRequest,
  type ListRunsResponse,
  ListToolsRequest,
  type ListToolsResponse,
  RunToolRequest,
  type RunToolResponse,
  SearchToolsRequest,
  type SearchToolsResponse,
  type StartRunRequest,
  type StartRunResponse,
  type WatchRunRequest,
  type WatchRunResponse,
} from '@toolhub/contracts';
import type { CallContext } from '@toolhub/grpc-edge';
import { randomUUID } from 'node:crypto';

/** The dispatcher's public methods the door calls (the `Dispatcher` class of @toolhub/dispatcher-core has them). */
export interface DoorBackend {
  listTools(req: ListToolsRequest, call: CallContext): Promise<ListToolsResponse>;
  getToolInfo(req: GetToolInfoRequest, call: CallContext): Promise<GetToolInfoResponse>;
  searchTools(req: SearchToolsRequest, call: CallContext): Promise<SearchToolsResponse>;
  getPreloadSet(req: GetPreloadSetRequest, call: CallContext): Promise<GetPreloadSetResponse>;
  runTool(req: RunToolRequest, call: CallContext): Promise<RunToolResponse>;
  listProvidersFor(call: CallContext): Promise<ListProvidersResponse>;
  /**
   * The dispatcher's async runs (the same service StartRun and the other run RPCs use), or
   * undefined while they are off: MCP tasks are offered only when they are on.
   */
  readonly asyncRuns?: DoorRuns | undefined;
}

/** The async-run methods MCP tasks use (`AsyncRuns` of @toolhub/dispatcher-core has them). */
export interface DoorRuns {
  /** How long an ended run (and its result) is kept, ms. */
  readonly retentionMs: number;
  startRun(req: StartRunRequest, call: CallContext): Promise<StartRunResponse>;
  getRun(req: GetRunRequest, call: CallContext): Promise<GetRunResponse>;
  cancelRun(req: CancelRunRequest, call: CallContext): Promise<CancelRunResponse>;
  listRuns(req: ListRunsRequest, call: CallContext): Promise<ListRunsResponse>;
  watchRun(req: WatchRunRequest, call: CallContext, send: (update: WatchRunResponse) => void): Promise<void>;
}

/** Where one MCP request came from: who, and how it can be cancelled. */
export interface DoorCall {
  principal: Principal;
  signal?: AbortSignal;
  /** W3C trace headers the HTTP request carried. */
  traceHeaders?: Readonly<Record<string, string>>;
  /** Epoch ms the request reached the door; timeouts count from here. */
  arrivedUnixMs?: number;
}

/** The CallContext of one MCP request. MCP has no deadline of its own: runs are bounded by timeout_ms and the dispatcher's limits. */
export function callContextOf(call: DoorCall, deadlineMs?: number): CallContext {
  const arrived = call.arrivedUnixMs ?? Date.now();
  return {
    deadline: deadlineMs && deadlineMs > 0 ? arrived + deadlineMs : Infinity,
    requestId: randomUUID(),
    signal: call.signal,
    arrivedUnixMs: arrived,
    principal: call.principal,
    traceHeaders: call.traceHeaders,
  };
}

/**
 * The failure of a dispatcher call as the gRPC client would report it: the same ToolHubCallError
 * (code, message and ErrorInfo), so agent-kit formats the same LLM-ready text on both doors.
 */
export function asCallError(method: string, err: unknown): ToolHubCallError {
  const e = boundedError(err);
  const info = e.toErrorInfo();
  return new ToolHubCallError(e.code, info.message || e.message, { method, grpcStatus: e.grpcStatus, info, attempts: 1, cause: err });
}

async function guarded<T>(method: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw asCallError(method, err);
  }
}

/**
 * agent-kit's ToolHubApi over the dispatcher for one MCP request, so the kit's executor (and its
 * texts) serve tool_list, tool_info and tool_search on MCP exactly as they do over gRPC.
 */
export function apiFor(backend: DoorBackend, call: DoorCall): ToolHubApi {
  const ctx = (o?: CallOptions) => callContextOf({ ...call, signal: o?.signal ?? call.signal }, o?.deadlineMs);
  return {
    listTools: (r = {}, o) =>
      guarded('ListTools', () => backend.listTools(withProtoDefaults(ListToolsRequest, r), ctx(o))),
    getToolInfo: (r, o) => guarded('GetToolInfo', () => backend.getToolInfo({ provider: r.provider ?? '', name: r.name ?? '' }, ctx(o))),
    searchTools: (r, o) =>
      guarded('SearchTools', () => backend.searchTools(withProtoDefaults(SearchToolsRequest, r), ctx(o))),
    getPreloadSet: (r = {}, o) => guarded('GetPreloadSet', () => backend.getPreloadSet(withProtoDefaults(GetPreloadSetRequest, r), ctx(o))),
    runTool: (r, o) => guarded('RunTool', () => backend.runTool(runRequest(r), ctx(o))),
    listProviders: (o) => guarded('ListProviders', () => backend.listProvidersFor(ctx(o))),
  };
}

const EMPTY = new Uint8Array(0);

/** Each message type's defaults, decoded once, and which of them are objects (given fresh per message). */
const defaultsOf = new WeakMap<object, { values: Record<string, unknown>; fresh: Array<[string, () => unknown]> }>();

function defaults(type: { decode(input: Uint8Array): unknown }): { values: Record<string, unknown>; fresh: Array<[string, () => unknown]> } {
  let d = defaultsOf.get(type);
  if (!d) {
    const values = type.decode(EMPTY) as Record<string, unknown>;
    const fresh: Array<[string, () => unknown]> = [];
    for (const [k, v] of Object.entries(values)) {
      if (Array.isArray(v)) fresh.push([k, () => []]);
      else if (v instanceof Uint8Array) fresh.push([k, () => new Uint8Array(0)]);
      else if (v !== null && typeof v === 'object') fresh.push([k, () => ({})]);
    }
    defaultsOf.set(type, (d = { values, fresh }));
  }
  return d;
}

/**
 * `fields` over the message's proto3 defaults (decoding zero bytes gives every default), so fields
 * added to the contract later are filled without the door knowing them. The defaults are decoded
 * once per type (a decode and an entries/filter/fromEntries per call cost ~6 µs of each MCP call);
 * repeated, map and bytes defaults are new per message, so no two requests share one.
 */
export function withProtoDefaults<T>(type: { decode(input: Uint8Array): T }, fields: Partial<T>): T {
  const d = defaults(type);
  const out: Record<string, unknown> = { ...d.values };
  for (const [k, make] of d.fresh) out[k] = make();
  for (const k of Object.keys(fields)) {
    const v = (fields as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = v;
  }
  return out as T;
}

/** A complete RunToolRequest from the fields given. */
export function runRequest(r: Partial<RunToolRequest>): RunToolRequest {
  return withProtoDefaults(RunToolRequest, r);
}
