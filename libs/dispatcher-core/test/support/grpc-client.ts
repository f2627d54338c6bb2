/** A promisified ToolHub gRPC client for tests, decoding the ErrorInfo trailer of failures. */
import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import {
  ErrorInfo,
  type GetAccessResponse,
  type GetToolInfoRequest,
  type GetToolInfoResponse,
  GRPC_ERROR_TRAILER,
  type ListProvidersResponse,
  type ListToolsRequest,
  type ListToolsResponse,
  type RunToolRequest,
  type RunToolResponse,
  type RunToolsRequest,
  type RunToolsResponse,
  type SearchToolsRequest,
  type SearchToolsResponse,
  ToolHubClient,
  type CancelRunRequest,
  type CancelRunResponse,
  type GetRunRequest,
  type GetRunResponse,
  type ListRunsRequest,
  type ListRunsResponse,
  type StartRunRequest,
  type StartRunResponse,
  type WatchRunResponse,
} from '@toolhub/contracts';

export interface CallError extends ServiceError {
  info?: ErrorInfo;
}

type Unary<Req, Res> = (req: Req, options?: { deadlineMs?: number; metadata?: Metadata }) => Promise<Res>;

export interface TestClient {
  raw: ToolHubClient;
  listTools: Unary<Partial<ListToolsRequest>, ListToolsResponse>;
  getToolInfo: Unary<Partial<GetToolInfoRequest>, GetToolInfoResponse>;
  runTool: Unary<Partial<RunToolRequest>, RunToolResponse>;
  listProviders: Unary<Record<string, never>, ListProvidersResponse>;
  searchTools: Unary<Partial<SearchToolsRequest>, SearchToolsResponse>;
  getAccess: Unary<Record<string, never>, GetAccessResponse>;
  runTools: Unary<Partial<RunToolsRequest>, RunToolsResponse>;
  startRun: Unary<Partial<StartRunRequest>, StartRunResponse>;
  getRun: Unary<Partial<GetRunRequest>, GetRunResponse>;
  cancelRun: Unary<Partial<CancelRunRequest>, CancelRunResponse>;
  listRuns: Unary<Partial<ListRunsRequest>, ListRunsResponse>;
  /** Every update of a WatchRun stream until it ends (rejects with the stream's error). */
  watchRun: (runId: string, options?: { deadlineMs?: number; metadata?: Metadata; onUpdate?: (u: WatchRunResponse) => void }) => Promise<WatchRunResponse[]>;
  close(): void;
}

export function connectClient(address: string): TestClient {
  const raw = new ToolHubClient(address, credentials.createInsecure());
  const wrap =
    <Req, Res>(method: string, defaults: Req): Unary<Partial<Req>, Res> =>
    (req, options = {}) =>
      new Promise<Res>((resolve, reject) => {
        const deadline = new Date(Date.now() + (options.deadlineMs ?? 10_000));
        const fn = (raw as unknown as Record<string, (...a: unknown[]) => void>)[method]!.bind(raw);
        fn({ ...defaults, ...req }, options.metadata ?? new Metadata(), { deadline }, (err: CallError | null, res: Res) => {
          if (err) {
            const bin = err.metadata?.get(GRPC_ERROR_TRAILER)[0];
            if (bin instanceof Buffer) err.info = ErrorInfo.decode(bin);
            reject(err);
          } else resolve(res);
        });
      });
  return {
    raw,
    listTools: wrap<ListToolsRequest, ListToolsResponse>('listTools', { provider: '', path: '', recursive: false, pageSize: 0, pageToken: '' }),
    getToolInfo: wrap<GetToolInfoRequest, GetToolInfoResponse>('getToolInfo', { provider: '', name: '' }),
    runTool: wrap<RunToolRequest, RunToolResponse>('runTool', { provider: '', name: '', arguments: {}, timeoutMs: 0, idempotencyKey: '', expectedVersion: '', caller: '', searchId: '' }),
    listProviders: wrap<Record<string, never>, ListProvidersResponse>('listProviders', {}),
    searchTools: wrap<SearchToolsRequest, SearchToolsResponse>('searchTools', { queries: [], provider: '', path: '', limit: 0, mode: 0, explain: false }),
    getAccess: wrap<Record<string, never>, GetAccessResponse>('getAccess', {}),
    runTools: wrap<RunToolsRequest, RunToolsResponse>('runTools', { calls: [], maxParallel: 0, caller: '', searchId: '' }),
    startRun: wrap<StartRunRequest, StartRunResponse>('startRun', { call: undefined }),
    getRun: wrap<GetRunRequest, GetRunResponse>('getRun', { runId: '' }),
    cancelRun: wrap<CancelRunRequest, CancelRunResponse>('cancelRun', { runId: '', reason: '' }),
    listRuns: wrap<ListRunsRequest, ListRunsResponse>('listRuns', { pageSize: 0, pageToken: '', state: 0 }),
    watchRun: (runId, options = {}) =>
      new Promise<WatchRunResponse[]>((resolve, reject) => {
        const updates: WatchRunResponse[] = [];
        const stream = raw.watchRun({ runId }, options.metadata ?? new Metadata(), { deadline: new Date(Date.now() + (options.deadlineMs ?? 60_000)) });
        stream.on('data', (u: WatchRunResponse) => {
          updates.push(u);
          options.onUpdate?.(u);
        });
        stream.on('error', (err: CallError) => {
          const bin = err.metadata?.get(GRPC_ERROR_TRAILER)[0];
          if (bin instanceof Buffer) err.info = ErrorInfo.decode(bin);
          reject(err);
        });
        stream.on('end', () => resolve(updates));
      }),
    close: () => raw.close(),
  };
}

/** Resolves with the rejection of `p` (fails the test if `p` resolves). */
export async function failure(p: Promise<unknown>): Promise<CallError> {
  try {
    await p;
  } catch (err) {
    return err as CallError;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

/** Call metadata presenting an API key (`x-api-key`). */
export function withApiKey(key: string): Metadata {
  const m = new Metadata();
  m.set('x-api-key', key);
  return m;
}
