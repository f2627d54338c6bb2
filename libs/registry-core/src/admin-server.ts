/**
 * The registry's operator API (toolhub.v1.RegistryAdmin) over gRPC, with health and reflection.
 * Every handler validates input before changing anything; errors carry the ErrorInfo trailer.
 */
import { Server } from '@grpc/grpc-js';
import {
  type ArgumentLimits,
  contractDescriptorSet,
  Importance,
  type ListRegisteredToolsRequest,
  parseToolId,
  type PreloadList as WirePreloadList,
  type PreviewPreloadSetRequest,
  RegistryAdminService,
  StatsSort,
  ToolHubError,
  type ToolInfo,
} from '@toolhub/contracts';
import type { Authenticator, Role } from '@toolhub/auth';
import {
  addReflection,
  ApiHealth,
  type CallContext,
  assertSafeBind,
  bindServer,
  closeServer,
  connectionAgeOptions,
  type ConnectionLimits,
  connectionLimitOptions,
  DEFAULT_CONNECTION_LIMITS,
  DescriptorIndex,
  EdgeCounters,
  type EdgeAuth,
  guardConnections,
  guardedServiceDefinition,
  type ServerTlsOptions,
  unary,
} from '@toolhub/grpc-edge';
import type { PreloadList, ToolStatsSort } from '@toolhub/store';
import { HealthImplementation } from 'grpc-health-check';

import { adminJsonPrecheck, checkOverlaysContent, DEFAULT_ADMIN_JSON_LIMITS } from './admin-json-limits';
import { audited, changedByOf, failureAuditor, toWireAudit } from './audit';
import { toWireLearning, toWireStats } from './convert';
import { previewPreloadSet } from './preload-preview';
import type { Registry } from './registry';

export interface AdminServerOptions {
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @default 50052 */
  port?: number;
  /** @default 4194304 */
  maxMessageBytes?: number;
  /**
   * Checks each call's credentials; every admin RPC needs the operator or admin role.
   * @default none: local mode (loopback only), every call is the local principal
   */
  authenticator?: Authenticator;
  /** TLS from certificate files, reloaded when they change. @default plaintext */
  tls?: ServerTlsOptions;
  /** Serve a non-loopback host without auth (only behind a proxy that authenticates). @default false */
  allowUnauthenticated?: boolean;
  /** Told when an admin change could not be written to the audit log. @default no-op */
  onAuditError?: (err: unknown) => void;
  /** Where refused and failed admin calls are logged (each is also audited, up to 60 a minute). */
  log?: { warn(obj: object, msg: string): void };
  /** The app's readiness: the API port's health services follow it (a load balancer may check this port). @default always ready */
  ready?: () => boolean;
  /** Connections end after this age (see connectionAgeOptions). @default 0: never */
  maxConnectionAgeMs?: number;
  /** Connection, stream and in-flight byte limits, as on the dispatcher's port (see @toolhub/grpc-edge connection-guard). @default DEFAULT_CONNECTION_LIMITS */
  connectionLimits?: Partial<Omit<ConnectionLimits, 'maxMessageBytes'>>;
  /** Where the connection guard counts its refusals (for metrics). @default a private counter */
  edgeCounters?: EdgeCounters;
  /** Limits on the JSON of one request (schemas and examples, overlays files), checked before parsing. @default DEFAULT_ADMIN_JSON_LIMITS */
  jsonLimits?: ArgumentLimits;
}

/** Admin RPCs change or reveal the whole catalog and its statistics: operators and admins only. */
const ADMIN_ROLES: readonly Role[] = ['operator', 'admin'];

export interface RunningAdminServer {
  readonly port: number;
  readonly address: string;
  /** Health NOT_SERVING from now on while calls are still served (the first step of a shutdown). */
  drain(): void;
  close(graceMs?: number): Promise<void>;
}

const SERVICE = 'toolhub.v1.RegistryAdmin';
/** Learned pairs ListSearchLearning answers when the request sets no limit. */
const LEARNED_LIMIT = 50;

const SORTS: Record<number, ToolStatsSort> = {
  [StatsSort.STATS_SORT_CALLS]: 'calls',
  [StatsSort.STATS_SORT_RECENCY]: 'recency',
  [StatsSort.STATS_SORT_FAILURE_RATE]: 'failure_rate',
  [StatsSort.STATS_SORT_LATENCY]: 'latency',
};

function wireList(l: PreloadList): WirePreloadList {
  return { toolIds: l.toolIds, revision: l.revision, changedBy: l.changedBy, changedUnixMs: l.changedUnixMs, comment: l.comment };
}

function requireTool(tool: ToolInfo | undefined): ToolInfo {
  if (!tool) throw ToolHubError.invalidArgument('tool is required: send the full ToolInfo (provider, name, path, description, input_schema).', [{ field: 'tool', message: 'required' }]);
  return tool;
}

function requireImportance(value: Importance): Importance {
  if (value === Importance.IMPORTANCE_UNSPECIFIED || !Object.values(Importance).includes(value)) {
    throw ToolHubError.invalidArgument('importance must be IMPORTANCE_CORE, IMPORTANCE_NORMAL or IMPORTANCE_LOW.', [{ field: 'importance', message: 'unspecified or unknown', example: '"IMPORTANCE_CORE"' }]);
  }
  return value;
}

export async function startAdminServer(registry: Registry, options: AdminServerOptions = {}): Promise<RunningAdminServer> {
  const max = options.maxMessageBytes ?? 4 * 1024 * 1024;
  const host = options.host ?? '127.0.0.1';
  assertSafeBind('The registry admin API', host, options.authenticator?.enabled ?? false, options.allowUnauthenticated);
  const auth: EdgeAuth | undefined = options.authenticator ? { authenticator: options.authenticator, roles: ADMIN_ROLES } : undefined;
  const onAuditError = options.onAuditError ?? (() => undefined);
  const store = registry.store;
  const connectionLimits: ConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...options.connectionLimits, maxMessageBytes: max };
  const jsonLimits = options.jsonLimits ?? DEFAULT_ADMIN_JSON_LIMITS;
  // Memory and connections before authentication bounded as on the agent API (connection-guard.ts).
  const server = new Server({ ...connectionLimitOptions(connectionLimits), 'grpc.enable_channelz': 0, ...connectionAgeOptions(options.maxConnectionAgeMs) });
  const m = (name: string) => `${SERVICE}/${name}`;
  // Refused (no or wrong credentials) and failed calls leave an audit entry with the reason (rate-limited).
  const onFailure = failureAuditor(store, { log: options.log, onAuditError });
  const rpc = <Req, Res>(name: string, fn: (req: Req, call: CallContext) => Promise<Res> | Res) => unary<Req, Res>(m(name), fn, auth, onFailure);
  const toolState = (provider: string, name: string) => () => registry.getTool(provider, name);
  const overlay = (action: string, toolId: string, call: CallContext, patch: { importance?: Importance; enabled?: boolean; fallbacks?: string[] }) => {
    const ref = parseToolId(toolId);
    return audited(
      store,
      call,
      { action, target: toolId, before: async () => (ref ? (await registry.getTool(ref.provider, ref.name)).overlay : undefined), run: () => registry.setOverlay(toolId, patch, changedByOf(call, '')), after: (t) => t.overlay },
      onAuditError,
    );
  };
  server.addService(guardedServiceDefinition(RegistryAdminService, max, { precheck: adminJsonPrecheck(jsonLimits) }), {
    registerTool: rpc('RegisterTool', async (req: { tool?: ToolInfo }, call) => {
      const tool = requireTool(req.tool);
      return { tool: (await audited(store, call, { action: 'RegisterTool', target: `${tool.provider}:${tool.name}`, before: async () => undefined, run: () => registry.registerTool(tool), after: (t) => t.tool }, onAuditError)).tool };
    }),
    updateTool: rpc('UpdateTool', async (req: { tool?: ToolInfo }, call) => {
      const tool = requireTool(req.tool);
      const before = async () => (await registry.getTool(tool.provider, tool.name)).tool;
      return { tool: (await audited(store, call, { action: 'UpdateTool', target: `${tool.provider}:${tool.name}`, before, run: () => registry.updateTool(tool), after: (t) => t.tool }, onAuditError)).tool };
    }),
    deleteTool: rpc('DeleteTool', async (req: { provider: string; name: string }, call) => {
      await audited(store, call, { action: 'DeleteTool', target: `${req.provider}:${req.name}`, before: toolState(req.provider, req.name), run: () => registry.deleteTool(req.provider, req.name), after: () => undefined }, onAuditError);
      return {};
    }),
    getPreloadList: rpc('GetPreloadList', async () => ({ list: wireList(await registry.getPreloadList()) })),
    setPreloadList: rpc('SetPreloadList', async (req: { toolIds: string[]; expectedRevision: number; changedBy: string; comment: string }, call) => {
      const list = await audited(
        store,
        call,
        {
          action: 'SetPreloadList',
          target: 'preload',
          comment: req.comment,
          before: () => registry.getPreloadList(),
          run: () => registry.setPreloadList(req.toolIds, req.expectedRevision, changedByOf(call, req.changedBy), req.comment),
        },
        onAuditError,
      );
      return { list: wireList(list) };
    }),
    getTool: rpc('GetTool', async (req: { provider: string; name: string }) => ({ tool: await registry.getTool(req.provider, req.name) })),
    listRegisteredTools: rpc('ListRegisteredTools', (req: ListRegisteredToolsRequest) => registry.listRegisteredToolsPage(req)),
    setImportance: rpc('SetImportance', async (req: { toolId: string; importance: Importance }, call) => ({
      tool: await overlay('SetImportance', req.toolId, call, { importance: requireImportance(req.importance) }),
    })),
    setFallbacks: rpc('SetFallbacks', async (req: { toolId: string; fallbacks: string[] }, call) => ({ tool: await overlay('SetFallbacks', req.toolId, call, { fallbacks: req.fallbacks }) })),
    setEnabled: rpc('SetEnabled', async (req: { toolId: string; enabled: boolean }, call) => ({ tool: await overlay('SetEnabled', req.toolId, call, { enabled: req.enabled }) })),
    getToolStats: rpc('GetToolStats', async (req: { toolId: string }) => ({ stats: toWireStats(await registry.getToolStats(req.toolId)) })),
    listToolStats: rpc('ListToolStats', async (req: { sort: StatsSort; limit: number; provider: string }) => ({
      stats: (await registry.listToolStats(SORTS[req.sort] ?? 'calls', req.limit, req.provider)).map(toWireStats),
    })),
    getCatalogStatus: rpc('GetCatalogStatus', async (req: { provider: string }) => ({ providers: registry.catalogStatus(req.provider), search: registry.searchStatus() })),
    suggestPreload: rpc('SuggestPreload', async (req: { limit: number }) => registry.suggestPreload(req.limit)),
    importOverlays: rpc('ImportOverlays', async (req: { content: string; format: string; changedBy: string; dryRun: boolean }, call) => {
      checkOverlaysContent(req.content, req.format, jsonLimits);
      const by = changedByOf(call, req.changedBy);
      const r = req.dryRun
        ? await registry.importOverlays(req.content, req.format, by, true)
        : await audited(store, call, { action: 'ImportOverlays', target: 'overlays', before: () => registry.overlaysBefore(req.content, req.format), run: () => registry.importOverlays(req.content, req.format, by, false), after: (x) => ({ file: req.content, ...x }) }, onAuditError);
      return { toolsChanged: req.dryRun ? 0 : r.toolIds.length, preloadListChanged: r.preloadChanged, messages: r.messages };
    }),
    getRegistryStatus: rpc('GetRegistryStatus', () => registry.statsStatus()),
    listAuditLog: rpc('ListAuditLog', async (req: { target: string; principal: string; beforeUnixMs: number; limit: number }) => ({
      entries: (await store.listAudit({ target: req.target, principal: req.principal, beforeUnixMs: req.beforeUnixMs, limit: req.limit })).map(toWireAudit),
    })),
    // The queries agents typed and the tools they then ran reveal what agents work on: operators only, like the rest.
    listSearchLearning: rpc('ListSearchLearning', (req: { provider: string; limit: number }) =>
      toWireLearning(registry.hybrid.learning(Math.min(Math.max(req.limit || LEARNED_LIMIT, 1), 1000), req.provider || undefined)),
    ),
    previewPreloadSet: rpc('PreviewPreloadSet', (req: PreviewPreloadSetRequest) => previewPreloadSet(store, req.toolIds, req.format)),
  });
  const health = new HealthImplementation({ '': 'SERVING', [SERVICE]: 'SERVING' });
  health.addToServer(server);
  const index = new DescriptorIndex(contractDescriptorSet());
  index.addServiceNames(SERVICE, 'grpc.health.v1.Health');
  addReflection(server, index);
  const port = await bindServer(server, host, options.port ?? 50052, options.tls);
  if (!guardConnections(server, connectionLimits, options.edgeCounters ?? new EdgeCounters())) {
    options.log?.warn({}, 'gRPC connection guard not installed on the registry admin API (grpc-js internals changed): only grpc-js limits apply; put a proxy with connection limits in front (README "Limits")');
  }
  const apiHealth = new ApiHealth(health, [SERVICE], options.ready ?? (() => true));
  let closed: Promise<void> | undefined;
  return {
    port,
    address: `${host}:${port}`,
    drain: () => apiHealth.drain(),
    close(graceMs = 5000) {
      apiHealth.drain();
      closed ??= closeServer(server, health, [SERVICE], graceMs);
      return closed;
    },
  };
}
