/**
 * The registry's operator API (toolhub.v1.RegistryAdmin) over gRPC, with health and reflection.
 * Every handler validates input before changing anything; errors carry the ErrorInfo trailer.
 */
import { Server } from '@grpc/grpc-js';
import {
  contractDescriptorSet,
  Importance,
  type PreloadList as WirePreloadList,
  RegistryAdminService,
  StatsSort,
  ToolHubError,
  type ToolInfo,
} from '@toolhub/contracts';
import { addReflection, bindServer, closeServer, DescriptorIndex, guardedServiceDefinition, unary } from '@toolhub/grpc-edge';
import type { PreloadList, ToolStatsSort } from '@toolhub/store';
import { HealthImplementation } from 'grpc-health-check';

import { toWireStats } from './convert';
import type { Registry } from './registry';

export interface AdminServerOptions {
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @default 50052 */
  port?: number;
  /** @default 4194304 */
  maxMessageBytes?: number;
}

export interface RunningAdminServer {
  readonly port: number;
  readonly address: string;
  close(graceMs?: number): Promise<void>;
}

const SERVICE = 'toolhub.v1.RegistryAdmin';

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
  const server = new Server({ 'grpc.max_receive_message_length': Math.min(max * 4, 64 * 1024 * 1024) });
  const m = (name: string) => `${SERVICE}/${name}`;
  server.addService(guardedServiceDefinition(RegistryAdminService, max), {
    registerTool: unary(m('RegisterTool'), async (req: { tool?: ToolInfo }) => ({ tool: (await registry.registerTool(requireTool(req.tool))).tool })),
    updateTool: unary(m('UpdateTool'), async (req: { tool?: ToolInfo }) => ({ tool: (await registry.updateTool(requireTool(req.tool))).tool })),
    deleteTool: unary(m('DeleteTool'), async (req: { provider: string; name: string }) => {
      await registry.deleteTool(req.provider, req.name);
      return {};
    }),
    getPreloadList: unary(m('GetPreloadList'), async () => ({ list: wireList(await registry.getPreloadList()) })),
    setPreloadList: unary(m('SetPreloadList'), async (req: { toolIds: string[]; expectedRevision: number; changedBy: string; comment: string }) => ({
      list: wireList(await registry.setPreloadList(req.toolIds, req.expectedRevision, req.changedBy, req.comment)),
    })),
    getTool: unary(m('GetTool'), async (req: { provider: string; name: string }) => ({ tool: await registry.getTool(req.provider, req.name) })),
    listRegisteredTools: unary(m('ListRegisteredTools'), async (req: { provider: string; path: string }) => ({ tools: await registry.listRegisteredTools(req.provider, req.path) })),
    setImportance: unary(m('SetImportance'), async (req: { toolId: string; importance: Importance }) => ({
      tool: await registry.setOverlay(req.toolId, { importance: requireImportance(req.importance) }),
    })),
    setFallbacks: unary(m('SetFallbacks'), async (req: { toolId: string; fallbacks: string[] }) => ({ tool: await registry.setOverlay(req.toolId, { fallbacks: req.fallbacks }) })),
    setEnabled: unary(m('SetEnabled'), async (req: { toolId: string; enabled: boolean }) => ({ tool: await registry.setOverlay(req.toolId, { enabled: req.enabled }) })),
    getToolStats: unary(m('GetToolStats'), async (req: { toolId: string }) => ({ stats: toWireStats(await registry.getToolStats(req.toolId)) })),
    listToolStats: unary(m('ListToolStats'), async (req: { sort: StatsSort; limit: number; provider: string }) => ({
      stats: (await registry.listToolStats(SORTS[req.sort] ?? 'calls', req.limit, req.provider)).map(toWireStats),
    })),
    getRegistryStatus: unary(m('GetRegistryStatus'), () => registry.statsStatus()),
    suggestPreload: unary(m('SuggestPreload'), async (req: { limit: number }) => registry.suggestPreload(req.limit)),
    importOverlays: unary(m('ImportOverlays'), async (req: { content: string; format: string; changedBy: string; dryRun: boolean }) => {
      const r = await registry.importOverlays(req.content, req.format, req.changedBy, req.dryRun);
      return { toolsChanged: req.dryRun ? 0 : r.toolIds.length, preloadListChanged: r.preloadChanged, messages: r.messages };
    }),
  });
  const health = new HealthImplementation({ '': 'SERVING', [SERVICE]: 'SERVING' });
  health.addToServer(server);
  const index = new DescriptorIndex(contractDescriptorSet());
  index.addServiceNames(SERVICE, 'grpc.health.v1.Health');
  addReflection(server, index);
  const host = options.host ?? '127.0.0.1';
  const port = await bindServer(server, host, options.port ?? 50052);
  let closed: Promise<void> | undefined;
  return {
    port,
    address: `${host}:${port}`,
    close(graceMs = 5000) {
      closed ??= closeServer(server, health, [SERVICE], graceMs);
      return closed;
    },
  };
}
