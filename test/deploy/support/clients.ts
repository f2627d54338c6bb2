/**
 * The agent call a deployment test makes end to end, through the dispatcher's and the registry's
 * published gRPC ports with API keys (as a real agent and operator would): search → info → run,
 * then the registry's statistics for the tool.
 */
import { credentials, Metadata } from '@grpc/grpc-js';
import { type RunToolResponse, type SearchToolsResponse, type ToolStats, RegistryAdminClient } from '@toolhub/contracts';
import { waitFor } from '@toolhub/test-harness';

import { connectAgent } from '../../e2e/support/stack';

/** Keys hashed in deploy/compose/api-keys.json (development keys, documented in docker-compose.yml). */
export const DEV_AGENT_KEY = 'dev-agent-key-change-me';
export const DEV_ADMIN_KEY = 'dev-admin-key-change-me';

export function keyMetadata(key: string): Metadata {
  const m = new Metadata();
  m.set('x-api-key', key);
  return m;
}

export interface AgentCallResult {
  search: SearchToolsResponse;
  info: { name: string; inputSchemaHasExpression: boolean };
  run: RunToolResponse;
  stats: ToolStats | undefined;
}

/** The registry's statistics of `toolId` (undefined while it has none). */
export function toolStats(registryAddress: string, adminKey: string, toolId: string): Promise<ToolStats | undefined> {
  const admin = new RegistryAdminClient(registryAddress, credentials.createInsecure());
  return new Promise<ToolStats | undefined>((resolve, reject) =>
    admin.getToolStats({ toolId }, keyMetadata(adminKey), { deadline: Date.now() + 10_000 }, (err, res) => (err ? reject(err) : resolve(res.stats))),
  ).finally(() => admin.close());
}

/**
 * Waits until the dispatcher lists provider `local` as healthy, then: SearchTools for a calculator,
 * GetToolInfo of the hit, RunTool `6 * 7`, and waits until the registry counts `calls` runs of it.
 */
export async function agentCall(opts: { dispatcher: string; registry: string; agentKey: string; adminKey: string; calls?: number; timeoutMs?: number }): Promise<AgentCallResult> {
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const agent = connectAgent(opts.dispatcher);
  const metadata = keyMetadata(opts.agentKey);
  try {
    await waitFor(async () => (await agent.listProviders({}, { metadata })).providers.some((p) => p.provider === 'local' && p.healthy), { timeoutMs, intervalMs: 500, message: 'the dispatcher to list provider local as healthy' });
    // SearchTools goes dispatcher → registry over NATS (the registry's reply needs its permissions).
    const search = await waitFor(
      () =>
        new Promise<SearchToolsResponse>((resolve, reject) =>
          agent.raw.searchTools({ queries: ['calculate math expression'], provider: 'local', path: '', limit: 5, mode: 0, explain: false }, metadata, { deadline: Date.now() + 10_000 }, (err, res) => (err ? reject(err) : resolve(res))),
        ).then((r) => (r.hits.some((h) => h.id === 'local:math_calculate') ? r : undefined)),
      { timeoutMs, intervalMs: 500, message: 'SearchTools to find local:math_calculate (the registry mirrors the catalog)' },
    );
    const info = await agent.getToolInfo({ provider: 'local', name: 'math_calculate' }, { metadata });
    const schema = JSON.stringify(info.tool?.inputSchema ?? {});
    const run = await agent.runTool({ provider: 'local', name: 'math_calculate', arguments: { expression: '6 * 7' }, caller: 'deploy-test' }, { metadata, deadlineMs: 30_000 });
    const want = opts.calls ?? 1;
    const stats = await waitFor(async () => {
      const s = await toolStats(opts.registry, opts.adminKey, 'local:math_calculate');
      return Number(s?.calls ?? 0) >= want ? s : undefined;
    }, { timeoutMs, intervalMs: 500, message: `the registry to count ${want} call(s) of local:math_calculate` });
    return { search, info: { name: info.tool?.name ?? '', inputSchemaHasExpression: schema.includes('expression') }, run, stats };
  } finally {
    agent.close();
  }
}
