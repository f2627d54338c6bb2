/**
 * A promise client for the registry's operator API (toolhub.v1.RegistryAdmin): the calls the CLI
 * needs, with a deadline per call and failures as the agent kit's ToolHubCallError (ToolHub code,
 * gRPC status and the decoded ErrorInfo trailer), so they are reported like agent API failures.
 */
import { credentials, Metadata, type ServiceError, status as GrpcStatus } from '@grpc/grpc-js';
import { assertTokenTransport, type ClientTlsOptions, errorInfoOf, tlsChannelCredentials, ToolHubCallError } from '@toolhub/agent-kit';
import {
  codeFromGrpcStatus,
  ErrorCode,
  errorCodeFromProto,
  type GetPreloadListResponse,
  type GetRegistryStatusResponse,
  type GetCatalogStatusResponse,
  type GetToolRequest,
  type GetToolResponse,
  type GetToolStatsRequest,
  type GetToolStatsResponse,
  HEADER_REQUEST_ID,
  type ListAuditLogRequest,
  type ListAuditLogResponse,
  type ListSearchLearningRequest,
  type ListSearchLearningResponse,
  type ListToolStatsRequest,
  type ListToolStatsResponse,
  RegistryAdminClient,
  type SetPreloadListRequest,
  type SetPreloadListResponse,
  StatsSort,
  type SuggestPreloadRequest,
  type SuggestPreloadResponse,
} from '@toolhub/contracts';
import { randomUUID } from 'node:crypto';

/** Prefix of the `method` of every ToolHubCallError this client throws. */
export const ADMIN_METHOD_PREFIX = 'RegistryAdmin/';

/** Credentials of the admin API (the CLI passes its resolved settings). */
export interface AdminCredentials {
  /** API key or JWT sent as `authorization: Bearer …` (an operator or admin credential). @default none */
  token?: string;
  /** TLS: `true` with the system's CAs, or PEM files. @default plaintext */
  tls?: ClientTlsOptions | true;
  /** Send the token in plaintext to another machine (see the agent kit's allowPlaintextToken). @default false */
  allowPlaintextToken?: boolean;
}

type Callback<Res> = (err: ServiceError | null, res: Res) => void;
type RawUnary<Req, Res> = (req: Req, md: Metadata, opts: { deadline: Date }, cb: Callback<Res>) => unknown;

/** The registry admin API as promises (one channel; close() it when done). */
export class RegistryAdminApi {
  private readonly raw: RegistryAdminClient;

  private readonly token: string;

  /**
   * Creates the client; the channel connects on the first call.
   * @param deadlineMs deadline of each call. @default 10000
   * @throws AgentKitError invalid_options when a TLS file cannot be read, or the token would go in plaintext to another machine
   */
  constructor(
    readonly address: string,
    private readonly deadlineMs = 10_000,
    auth: AdminCredentials = {},
  ) {
    this.token = auth.token ?? '';
    assertTokenTransport(address, { token: this.token, secure: Boolean(auth.tls), allowPlaintextToken: auth.allowPlaintextToken });
    this.raw = new RegistryAdminClient(address, auth.tls ? tlsChannelCredentials(auth.tls === true ? {} : auth.tls) : credentials.createInsecure());
  }

  getPreloadList(): Promise<GetPreloadListResponse> {
    return this.call('GetPreloadList', this.raw.getPreloadList, {});
  }

  setPreloadList(req: Partial<SetPreloadListRequest>): Promise<SetPreloadListResponse> {
    return this.call('SetPreloadList', this.raw.setPreloadList, { toolIds: req.toolIds ?? [], expectedRevision: req.expectedRevision ?? 0, changedBy: req.changedBy ?? '', comment: req.comment ?? '' });
  }

  suggestPreload(req: Partial<SuggestPreloadRequest>): Promise<SuggestPreloadResponse> {
    return this.call('SuggestPreload', this.raw.suggestPreload, { limit: req.limit ?? 0 });
  }

  getToolStats(req: GetToolStatsRequest): Promise<GetToolStatsResponse> {
    return this.call('GetToolStats', this.raw.getToolStats, req);
  }

  /** Catalog sync state and quarantined tools/sources per provider ('' for every provider). */
  getCatalogStatus(provider = ''): Promise<GetCatalogStatusResponse> {
    return this.call('GetCatalogStatus', this.raw.getCatalogStatus, { provider });
  }

  /** Statistics ingestion health: lag behind the calls, store failures. */
  getRegistryStatus(): Promise<GetRegistryStatusResponse> {
    return this.call('GetRegistryStatus', this.raw.getRegistryStatus, {});
  }

  listToolStats(req: Partial<ListToolStatsRequest>): Promise<ListToolStatsResponse> {
    return this.call('ListToolStats', this.raw.listToolStats, { sort: req.sort ?? StatsSort.STATS_SORT_UNSPECIFIED, limit: req.limit ?? 0, provider: req.provider ?? '' });
  }

  /** Admin changes, newest first (who, when, what, before and after). */
  listAuditLog(req: Partial<ListAuditLogRequest>): Promise<ListAuditLogResponse> {
    return this.call('ListAuditLog', this.raw.listAuditLog, { target: req.target ?? '', principal: req.principal ?? '', beforeUnixMs: req.beforeUnixMs ?? 0, limit: req.limit ?? 0 });
  }

  /** What search learned from use (every replica holds the pairs of all, and those the store kept): query → tool pairs, newest first, and the bounds. */
  listSearchLearning(req: Partial<ListSearchLearningRequest>): Promise<ListSearchLearningResponse> {
    return this.call('ListSearchLearning', this.raw.listSearchLearning, { provider: req.provider ?? '', limit: req.limit ?? 0 });
  }

  getTool(req: GetToolRequest): Promise<GetToolResponse> {
    return this.call('GetTool', this.raw.getTool, req);
  }

  /** Closes the channel. Idempotent. */
  close(): void {
    this.raw.close();
  }

  private call<Req, Res>(method: string, fn: unknown, req: Req): Promise<Res> {
    const md = new Metadata();
    md.set(HEADER_REQUEST_ID, randomUUID());
    if (this.token) md.set('authorization', `Bearer ${this.token}`);
    return new Promise<Res>((resolve, reject) => {
      (fn as RawUnary<Req, Res>).call(this.raw, req, md, { deadline: new Date(Date.now() + this.deadlineMs) }, (err, res) => {
        if (err) reject(this.toCallError(method, err));
        else resolve(res);
      });
    });
  }

  private toCallError(method: string, err: ServiceError): ToolHubCallError {
    const info = errorInfoOf(err);
    const grpcStatus = (err.code ?? GrpcStatus.UNKNOWN) as GrpcStatus;
    const code = info && info.code !== ErrorCode.ERROR_CODE_UNSPECIFIED ? errorCodeFromProto(info.code) : codeFromGrpcStatus(grpcStatus);
    let message = info?.message || err.details || err.message;
    if (!info && grpcStatus === GrpcStatus.DEADLINE_EXCEEDED) message = `${method} got no answer within ${this.deadlineMs} ms; retry with a longer --timeout.`;
    return new ToolHubCallError(code, message, { method: `${ADMIN_METHOD_PREFIX}${method}`, grpcStatus, ...(info ? { info } : {}), attempts: 1, cause: err });
  }
}
