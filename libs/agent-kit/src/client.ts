/**
 * The ToolHub gRPC client agent fleets embed: promise methods over the generated ToolHubClient,
 * one channel reused for every call, per-call deadlines, bounded retries with backoff and jitter on
 * UNAVAILABLE only, keep-alive, and failures as ToolHubCallError with the server's ErrorInfo.
 */
import { type ClientUnaryCall, type Metadata as MetadataType, Metadata, type ServiceError, status as GrpcStatus } from '@grpc/grpc-js';
import {
  codeFromGrpcStatus,
  ErrorCode,
  ErrorInfo,
  errorCodeFromProto,
  type GetPreloadSetRequest,
  type GetPreloadSetResponse,
  type GetToolInfoRequest,
  type GetToolInfoResponse,
  GRPC_ERROR_TRAILER,
  HEADER_REQUEST_ID,
  type ListProvidersResponse,
  type ListToolsRequest,
  type ListToolsResponse,
  MAX_PAGE_SIZE,
  PreloadFormat,
  type RunProgress,
  type RunToolRequest,
  type RunToolStreamResponse,
  type RunToolResponse,
  type RunToolsRequest,
  type RunToolsResponse,
  type SearchToolsRequest,
  type SearchToolsResponse,
  ToolHubClient,
  type CancelRunResponse,
  type GetRunResponse,
  type ListRunsRequest,
  type ListRunsResponse,
  type StartRunResponse,
  type WatchRunResponse,
} from '@toolhub/contracts';
import { randomUUID } from 'node:crypto';

import { channelOptionsOf, type ResolvedClientOptions, type ToolHubAgentClientOptions, withClientDefaults } from './client-options';
import { AgentKitError, ToolHubCallError } from './errors';
import { assertTokenTransport } from './plaintext-token';
import { backoffDelay, sleep } from './retry';

/** Per-call options. */
export interface CallOptions {
  /** Deadline of this call, retries included, in ms. @default the client's deadlineMs (RunTool: see runTool) */
  deadlineMs?: number;
  /** Cancels the call (and any pending retry); it then fails with code `timeout` and gRPC CANCELLED. */
  signal?: AbortSignal;
  /** Extra metadata for this call. */
  metadata?: Record<string, string>;
}

/** Options of `runTool`: a listener makes it a RunToolStream call that reports the tool's progress. */
export interface RunCallOptions extends CallOptions {
  /**
   * Receives each progress update of the run (RunToolStream) before the result. A server without
   * RunToolStream (UNIMPLEMENTED) gets a plain RunTool instead, and no updates.
   */
  onProgress?: (update: RunProgress) => void;
}

/** The ToolHub agent API as promises. {@link ToolHubAgentClient} implements it; the executor needs nothing more. */
export interface ToolHubApi {
  listTools(request?: Partial<ListToolsRequest>, options?: CallOptions): Promise<ListToolsResponse>;
  getToolInfo(request: Partial<GetToolInfoRequest>, options?: CallOptions): Promise<GetToolInfoResponse>;
  runTool(request: Partial<RunToolRequest>, options?: CallOptions): Promise<RunToolResponse>;
  searchTools(request: Partial<SearchToolsRequest>, options?: CallOptions): Promise<SearchToolsResponse>;
  getPreloadSet(request?: Partial<GetPreloadSetRequest>, options?: CallOptions): Promise<GetPreloadSetResponse>;
  listProviders(options?: CallOptions): Promise<ListProvidersResponse>;
  /** Async runs (the `tool_start` / `tool_result` meta-tools); optional so older fakes still fit. */
  startRun?(request: Partial<RunToolRequest>, options?: CallOptions): Promise<StartRunResponse>;
  getRun?(runId: string, options?: CallOptions): Promise<GetRunResponse>;
  watchRun?(runId: string, options?: CallOptions): AsyncIterable<WatchRunResponse>;
}

type Callback<Res> = (err: ServiceError | null, res: Res) => void;
type RawUnary<Req, Res> = (req: Req, md: MetadataType, opts: { deadline: Date }, cb: Callback<Res>) => Pick<ClientUnaryCall, 'cancel'>;

/** Decodes the `toolhub-error-bin` trailer; undefined when absent or unreadable. */
export function errorInfoOf(err: ServiceError): ErrorInfo | undefined {
  const bin = err.metadata?.get(GRPC_ERROR_TRAILER)[0];
  if (!(bin instanceof Buffer)) return undefined;
  try {
    return ErrorInfo.decode(bin);
  } catch {
    return undefined;
  }
}

/**
 * A connection to the ToolHub agent API. Create with {@link ToolHubAgentClient.connect}; share one
 * instance per process (it multiplexes every call over one HTTP/2 channel) and close() it on shutdown.
 */
export class ToolHubAgentClient implements ToolHubApi {
  private closed = false;
  private readonly sleeps = new AbortController();

  private constructor(
    /** The generated grpc-js client (one channel). */
    readonly raw: ToolHubClient,
    readonly options: ResolvedClientOptions,
  ) {}

  /**
   * Creates the client. The channel connects lazily on the first call unless `waitForReadyMs` > 0.
   * @throws AgentKitError invalid_options for bad options, and for a token that would go in plaintext to another machine (see allowPlaintextToken).
   * @throws ToolHubCallError unavailable when `waitForReadyMs` > 0 and the server is not reachable in time.
   */
  static async connect(address: string, options: ToolHubAgentClientOptions = {}): Promise<ToolHubAgentClient> {
    if (typeof address !== 'string' || address.trim() === '') throw new AgentKitError('invalid_options', 'address must be "host:port", e.g. "localhost:50051".');
    const o = withClientDefaults(options);
    assertTokenTransport(address, { token: o.token, secure: Boolean(options.tls) || options.credentials !== undefined, allowPlaintextToken: o.allowPlaintextToken });
    const client = new ToolHubAgentClient(new ToolHubClient(address, o.credentials, channelOptionsOf(o)), o);
    if (o.waitForReadyMs > 0) {
      try {
        await new Promise<void>((resolve, reject) => client.raw.waitForReady(Date.now() + o.waitForReadyMs, (err) => (err ? reject(err) : resolve())));
      } catch (err) {
        client.close();
        throw new ToolHubCallError('unavailable', `ToolHub at ${address} was not reachable within ${o.waitForReadyMs} ms; check the address and that the dispatcher runs.`, {
          method: 'connect',
          grpcStatus: GrpcStatus.UNAVAILABLE,
          attempts: 1,
          cause: err,
        });
      }
    }
    return client;
  }

  /**
   * Like `ls`: the providers (no provider), or the categories and tools at a path. Without
   * `pageSize` or `pageToken` it follows every `next_page_token` (pages of MAX_PAGE_SIZE, each with
   * its own deadline) and answers the whole listing as one response, as before paging; with either
   * it answers that one page. A server older than paging answers in one reply, which ends the loop.
   * @throws ToolHubCallError as every call; `internal` when a server repeats a page token.
   */
  async listTools(request: Partial<ListToolsRequest> = {}, options?: CallOptions): Promise<ListToolsResponse> {
    const base: ListToolsRequest = {
      provider: request.provider ?? '',
      path: request.path ?? '',
      recursive: request.recursive ?? false,
      pageSize: request.pageSize ?? 0,
      pageToken: request.pageToken ?? '',
    };
    const raw = this.raw.listTools.bind(this.raw) as RawUnary<ListToolsRequest, ListToolsResponse>;
    if (base.pageSize !== 0 || base.pageToken !== '') return this.call('ListTools', raw, base, this.options.deadlineMs, options);
    const first = await this.call('ListTools', raw, { ...base, pageSize: MAX_PAGE_SIZE }, this.options.deadlineMs, options);
    const tools = [...first.tools];
    const seen = new Set<string>();
    let last = first;
    while (last.nextPageToken !== '') {
      if (seen.has(last.nextPageToken)) {
        throw new ToolHubCallError('internal', `ListTools: the server sent page token ${JSON.stringify(last.nextPageToken)} twice; stopped instead of looping.`, { method: 'ListTools', grpcStatus: GrpcStatus.INTERNAL, attempts: 1 });
      }
      seen.add(last.nextPageToken);
      last = await this.call('ListTools', raw, { ...base, pageSize: MAX_PAGE_SIZE, pageToken: last.nextPageToken }, this.options.deadlineMs, options);
      tools.push(...last.tools);
    }
    // The last page's hint is the listing's hint without a "next page" sentence.
    return { categories: first.categories, tools, hint: last.hint, nextPageToken: '', total: tools.length };
  }

  /** Like `man`: the full info of one tool. */
  getToolInfo(request: Partial<GetToolInfoRequest>, options?: CallOptions): Promise<GetToolInfoResponse> {
    const req: GetToolInfoRequest = { provider: request.provider ?? '', name: request.name ?? '' };
    return this.call('GetToolInfo', this.raw.getToolInfo.bind(this.raw) as RawUnary<GetToolInfoRequest, GetToolInfoResponse>, req, this.options.deadlineMs, options);
  }

  /**
   * Runs one tool. The deadline is `options.deadlineMs`, else timeout_ms + runDeadlineSlackMs, else
   * runDeadlineMs. Without an idempotency key the call gets a fresh one (autoIdempotencyKey), so a
   * retry after a lost connection cannot run the tool twice.
   */
  runTool(request: Partial<RunToolRequest>, options?: RunCallOptions): Promise<RunToolResponse> {
    const timeoutMs = request.timeoutMs ?? 0;
    const req: RunToolRequest = {
      provider: request.provider ?? '',
      name: request.name ?? '',
      arguments: request.arguments ?? {},
      timeoutMs,
      idempotencyKey: request.idempotencyKey || (this.options.autoIdempotencyKey ? randomUUID() : ''),
      expectedVersion: request.expectedVersion ?? '',
      caller: request.caller || this.options.caller,
      searchId: request.searchId ?? '',
    };
    const deadlineMs = timeoutMs > 0 ? timeoutMs + this.options.runDeadlineSlackMs : this.options.runDeadlineMs;
    const unary = this.raw.runTool.bind(this.raw) as RawUnary<RunToolRequest, RunToolResponse>;
    const onProgress = options?.onProgress;
    if (!onProgress) return this.call('RunTool', unary, req, deadlineMs, options);
    return this.call('RunToolStream', this.streamed(onProgress), req, deadlineMs, options).catch((err: unknown) => {
      // A dispatcher older than RunToolStream: the same call, without progress.
      if (err instanceof ToolHubCallError && err.grpcStatus === GrpcStatus.UNIMPLEMENTED) return this.call('RunTool', unary, req, deadlineMs, options);
      throw err;
    });
  }

  /** RunToolStream as one unary-shaped call (so retries and errors work as for RunTool): updates go to `onProgress`, the result answers. */
  private streamed(onProgress: (update: RunProgress) => void): RawUnary<RunToolRequest, RunToolResponse> {
    return (req, metadata, opts, callback) => {
      const stream = this.raw.runToolStream({ run: req }, metadata, opts);
      let result: RunToolResponse | undefined;
      let done = false;
      const finish = (err: ServiceError | null, res?: RunToolResponse): void => {
        if (done) return;
        done = true;
        callback(err, res as RunToolResponse);
      };
      stream.on('data', (event: RunToolStreamResponse) => {
        if (event.result) result = event.result;
        else if (event.progress) {
          const p = event.progress;
          const update: RunProgress = {};
          if (p.progress !== undefined) update.progress = p.progress;
          if (p.total !== undefined) update.total = p.total;
          if (p.message) update.message = p.message;
          if (p.log) update.log = p.log;
          onProgress(update);
        }
      });
      stream.on('error', (err: ServiceError) => finish(err));
      stream.on('end', () =>
        finish(result ? null : Object.assign(new Error('RunToolStream ended without a result'), { code: GrpcStatus.INTERNAL, details: 'RunToolStream ended without a result', metadata: new Metadata() }) as ServiceError, result),
      );
      return stream;
    };
  }

  /**
   * Runs a dependency-ordered batch (RunTools): a call's argument may be `{"$ref": "#/calls/<id>/..."}`
   * to take an earlier call's output. The server checks the whole graph before anything runs and
   * answers every call's result or error. The deadline is `options.deadlineMs`, else runDeadlineMs.
   * Each call without an idempotency key gets a fresh one (autoIdempotencyKey), as in runTool.
   */
  runTools(request: Partial<RunToolsRequest>, options?: CallOptions): Promise<RunToolsResponse> {
    const req: RunToolsRequest = {
      calls: (request.calls ?? []).map((c) => ({ ...c, idempotencyKey: c.idempotencyKey || (this.options.autoIdempotencyKey ? randomUUID() : '') })),
      maxParallel: request.maxParallel ?? 0,
      caller: request.caller || this.options.caller,
      searchId: request.searchId ?? '',
    };
    return this.call('RunTools', this.raw.runTools.bind(this.raw) as RawUnary<RunToolsRequest, RunToolsResponse>, req, this.options.runDeadlineMs, options);
  }

  /**
   * Starts an async run (StartRun): answers at once with the run's id and state; follow it with
   * getRun, watchRun or cancelRun. Without an idempotency key the call gets a fresh one
   * (autoIdempotencyKey), so a retried StartRun returns the same run instead of starting another.
   */
  startRun(request: Partial<RunToolRequest>, options?: CallOptions): Promise<StartRunResponse> {
    const call: RunToolRequest = {
      provider: request.provider ?? '',
      name: request.name ?? '',
      arguments: request.arguments ?? {},
      timeoutMs: request.timeoutMs ?? 0,
      idempotencyKey: request.idempotencyKey || (this.options.autoIdempotencyKey ? randomUUID() : ''),
      expectedVersion: request.expectedVersion ?? '',
      caller: request.caller || this.options.caller,
      searchId: request.searchId ?? '',
    };
    return this.call('StartRun', this.raw.startRun.bind(this.raw) as RawUnary<{ call: RunToolRequest }, StartRunResponse>, { call }, this.options.deadlineMs, options);
  }

  /** An async run's state, progress, log tail and, once it ended, its result or error. */
  getRun(runId: string, options?: CallOptions): Promise<GetRunResponse> {
    return this.call('GetRun', this.raw.getRun.bind(this.raw) as RawUnary<{ runId: string }, GetRunResponse>, { runId }, this.options.deadlineMs, options);
  }

  /** Cancels a queued run, or asks the worker running it to stop (the adapter is told to abort). */
  cancelRun(runId: string, reason = '', options?: CallOptions): Promise<CancelRunResponse> {
    return this.call('CancelRun', this.raw.cancelRun.bind(this.raw) as RawUnary<{ runId: string; reason: string }, CancelRunResponse>, { runId, reason }, this.options.deadlineMs, options);
  }

  /** The caller's own runs, newest first, one page. */
  listRuns(request: Partial<ListRunsRequest> = {}, options?: CallOptions): Promise<ListRunsResponse> {
    const req: ListRunsRequest = { pageSize: request.pageSize ?? 0, pageToken: request.pageToken ?? '', state: request.state ?? 0 };
    return this.call('ListRuns', this.raw.listRuns.bind(this.raw) as RawUnary<ListRunsRequest, ListRunsResponse>, req, this.options.deadlineMs, options);
  }

  /**
   * The updates of a run (WatchRun) as they come, until the last one (`final`). The deadline is
   * `options.deadlineMs`, else runDeadlineMs; not retried (watch again: the first update is the
   * run as it is then).
   * @throws ToolHubCallError (e.g. not_found for a run that is not the caller's)
   */
  async *watchRun(runId: string, options: CallOptions = {}): AsyncGenerator<WatchRunResponse> {
    if (this.closed) throw new AgentKitError('closed', 'WatchRun called after close().');
    const deadlineMs = options.deadlineMs ?? this.options.runDeadlineMs;
    const stream = this.raw.watchRun({ runId }, this.metadataFor(randomUUID(), options), { deadline: new Date(Date.now() + deadlineMs) });
    const onAbort = (): void => stream.cancel();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const update of stream) yield update as WatchRunResponse;
    } catch (err) {
      throw this.toCallError('WatchRun', err as ServiceError, errorInfoOf(err as ServiceError), 1, deadlineMs);
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      stream.cancel();
    }
  }

  /** Ranked keyword search; several queries in one call. */
  searchTools(request: Partial<SearchToolsRequest>, options?: CallOptions): Promise<SearchToolsResponse> {
    const req: SearchToolsRequest = { queries: request.queries ?? [], provider: request.provider ?? '', path: request.path ?? '', limit: request.limit ?? 0, mode: request.mode ?? 0, explain: request.explain ?? false };
    return this.call('SearchTools', this.raw.searchTools.bind(this.raw) as RawUnary<SearchToolsRequest, SearchToolsResponse>, req, this.options.deadlineMs, options);
  }

  /** The operator's preload set (and its server-side rendering in `format`). */
  getPreloadSet(request: Partial<GetPreloadSetRequest> = {}, options?: CallOptions): Promise<GetPreloadSetResponse> {
    const req: GetPreloadSetRequest = { format: request.format ?? PreloadFormat.PRELOAD_FORMAT_COMPACT };
    return this.call('GetPreloadSet', this.raw.getPreloadSet.bind(this.raw) as RawUnary<GetPreloadSetRequest, GetPreloadSetResponse>, req, this.options.deadlineMs, options);
  }

  /** The known providers and their health. */
  listProviders(options?: CallOptions): Promise<ListProvidersResponse> {
    return this.call('ListProviders', this.raw.listProviders.bind(this.raw) as RawUnary<object, ListProvidersResponse>, {}, this.options.deadlineMs, options);
  }

  /** Closes the channel; pending retries stop and later calls fail with AgentKitError closed. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.sleeps.abort();
    this.raw.close();
  }

  private metadataFor(requestId: string, options?: CallOptions): MetadataType {
    const md = new Metadata();
    // The token first, so explicit `authorization` metadata (client-wide or per call) replaces it.
    const auth = this.options.token ? { authorization: `Bearer ${this.options.token}` } : {};
    for (const [k, v] of Object.entries({ ...auth, ...this.options.metadata, ...options?.metadata })) md.set(k, v);
    md.set(HEADER_REQUEST_ID, requestId);
    return md;
  }

  private async call<Req, Res>(method: string, fn: RawUnary<Req, Res>, req: Req, defaultDeadlineMs: number, options: CallOptions = {}): Promise<Res> {
    const deadlineMs = options.deadlineMs ?? defaultDeadlineMs;
    const deadline = Date.now() + deadlineMs;
    // One request id for every attempt, so the server's logs tie the retries together.
    const metadata = this.metadataFor(randomUUID(), options);
    const signal = options.signal ? AbortSignal.any([options.signal, this.sleeps.signal]) : this.sleeps.signal;
    for (let attempt = 1; ; attempt++) {
      if (this.closed) throw new AgentKitError('closed', `${method} called after close().`);
      let err: ServiceError;
      try {
        return await this.attempt(fn, req, metadata, deadline, options.signal);
      } catch (e) {
        err = e as ServiceError;
      }
      const info = errorInfoOf(err);
      if (err.code === GrpcStatus.UNAVAILABLE && attempt < this.options.retry.maxAttempts && !this.closed) {
        const delay = Math.max(backoffDelay(attempt, this.options.retry), info?.retryAfterMs ?? 0);
        if (Date.now() + delay < deadline && (await sleep(delay, signal))) continue;
      }
      throw this.toCallError(method, err, info, attempt, deadlineMs);
    }
  }

  private attempt<Req, Res>(fn: RawUnary<Req, Res>, req: Req, metadata: MetadataType, deadline: number, signal?: AbortSignal): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      if (signal?.aborted) {
        reject(Object.assign(new Error('Cancelled by the caller'), { code: GrpcStatus.CANCELLED, details: 'Cancelled by the caller', metadata: new Metadata() }));
        return;
      }
      const onAbort = (): void => call.cancel();
      const call = fn(req, metadata, { deadline: new Date(deadline) }, (err, res) => {
        signal?.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve(res);
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private toCallError(method: string, err: ServiceError, info: ErrorInfo | undefined, attempts: number, deadlineMs: number): ToolHubCallError {
    const grpcStatus = (err.code ?? GrpcStatus.UNKNOWN) as GrpcStatus;
    const code = info && info.code !== ErrorCode.ERROR_CODE_UNSPECIFIED ? errorCodeFromProto(info.code) : codeFromGrpcStatus(grpcStatus);
    let message = info?.message || err.details || err.message;
    if (!info && grpcStatus === GrpcStatus.DEADLINE_EXCEEDED) {
      message = `${method} got no answer within the ${deadlineMs} ms deadline; retry with a longer deadline (or timeout_ms), or try a smaller request.`;
    } else if (!info && grpcStatus === GrpcStatus.UNAVAILABLE) {
      message = `ToolHub is unavailable (${err.details || err.message}) after ${attempts} attempt${attempts === 1 ? '' : 's'}; retry later.`;
    } else if (!info && grpcStatus === GrpcStatus.UNIMPLEMENTED) {
      message = `This ToolHub server does not offer ${method} yet (${err.details || 'UNIMPLEMENTED'}).`;
    }
    return new ToolHubCallError(code, message, { method, grpcStatus, ...(info ? { info } : {}), attempts, cause: err });
  }
}
