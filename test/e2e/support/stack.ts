/**
 * Shared pieces of the end-to-end tests: each ToolHub app started as its own Node process (the
 * registry on MongoDB with a database and stats consumer of its own), an agent's gRPC client with
 * every ToolHub method and a registry admin client.
 */
import { credentials, Metadata } from '@grpc/grpc-js';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { NatsBus, natsAuthenticator, natsCredentialsFromEnv } from '@toolhub/bus';
import {
  type CatalogSyncStatus,
  EVENTS_STREAM,
  eventSubject,
  type GetPreloadSetRequest,
  type GetPreloadSetResponse,
  type ListRegisteredToolsResponse,
  type RegisteredTool,
  RegistryAdminClient,
  type SearchToolsRequest,
  type SearchToolsResponse,
  ToolCalled,
  toolCalledMessage,
  type ToolStats,
} from '@toolhub/contracts';
import { freePort, spawnProcess, type SpawnedProcess, waitFor } from '@toolhub/test-harness';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';

import { type CallError, connectClient, type TestClient } from '../../../libs/dispatcher-core/test/support/grpc-client';

export { failure } from '../../../libs/dispatcher-core/test/support/grpc-client';
export { childrenOf, isAlive, type ProcessRow } from '@toolhub/test-harness';

/** The repository root. */
const ROOT = join(__dirname, '../../..');
/** `node --import tsx`: one process per app, so a signal reaches the app itself (the tsx CLI would leave its child). */
const TS_NODE = ['--import', 'tsx'];

export const EVERYTHING_ENTRY = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');
export const FIXTURE_SERVER = join(ROOT, 'libs/mcp-adapter/test/fixtures/dynamic-server.mjs');
export const PRISM_ENTRY = require.resolve('@stoplight/prism-cli/dist/index.js');
/** The real-world OpenAPI document the cloud tests serve with Prism (shared data, beside the repository). */
export const PETSTORE_DOCUMENT = join(ROOT, '..', 'shared', 'data', 'openapi', 'petstore.yaml');

/** Starts `apps/<app>/src/main.ts` and waits for its ready line. */
export function startApp(app: string, env: Record<string, string>, readyPattern: RegExp, timeoutMs = 60_000): Promise<SpawnedProcess> {
  return spawnProcess(process.execPath, [...TS_NODE, `apps/${app}/src/main.ts`], { cwd: ROOT, env: { LOG_LEVEL: 'info', ...env }, readyPattern, timeoutMs });
}

/** A registry process with a database and a durable stats consumer no other test shares. */
export interface RegistryProcess {
  proc: SpawnedProcess;
  admin: AdminClient;
  dbName: string;
  consumer: string;
  /** SIGTERM, then drops its database and deletes its durable consumer (shared services stay tidy). */
  stop(): Promise<void>;
  /** SIGTERM only: database and consumer stay for a registry started with `restartOf`. */
  halt(): Promise<void>;
}

export interface RegistryProcessOptions {
  /** Start on the database and stats consumer of this (halted) registry: a restart. */
  restartOf?: RegistryProcess;
  /** More environment variables (e.g. TOOLHUB_RESYNC_GRACE). */
  env?: Record<string, string>;
}

export async function startRegistry(nats: string, mongo: string, label: string, options: RegistryProcessOptions = {}): Promise<RegistryProcess> {
  const run = randomUUID().slice(0, 8);
  const dbName = options.restartOf?.dbName ?? `e2e_${label}_${run}`;
  const consumer = options.restartOf?.consumer ?? `e2e_${label}_${run}`;
  const adminPort = await freePort();
  const proc = await startApp(
    'registry',
    { NATS_URL: nats, MONGO_URL: mongo, TOOLHUB_MONGO_DB: dbName, TOOLHUB_CONSOLE_PORT: '0', TOOLHUB_ADMIN_PORT: String(adminPort), TOOLHUB_STATS_CONSUMER: consumer, ...options.env },
    /registry ready/,
  );
  const admin = adminClient(`127.0.0.1:${adminPort}`);
  return {
    proc,
    admin,
    dbName,
    consumer,
    halt: async () => {
      admin.close();
      await proc.kill('SIGTERM');
    },
    stop: async () => {
      admin.close();
      await proc.kill('SIGTERM');
      await dropDatabase(mongo, dbName);
      await deleteConsumer(nats, consumer);
    },
  };
}

/** Deletes a durable consumer of the events stream (best effort). */
export async function deleteConsumer(natsUrl: string, durable: string): Promise<void> {
  // The shared test NATS requires credentials (scripts/services.sh): NATS_USER/NATS_PASSWORD as the apps read them.
  const creds = natsCredentialsFromEnv();
  const nc = await connect({ servers: natsUrl, ...(creds ? { authenticator: natsAuthenticator(creds) } : {}) });
  try {
    await (await jetstreamManager(nc)).consumers.delete(EVENTS_STREAM, durable);
  } catch {
    // Best effort, like dropDatabase.
  } finally {
    await nc.close();
  }
}

async function dropDatabase(url: string, dbName: string): Promise<void> {
  const { MongoClient } = await import('mongodb');
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000 });
  try {
    await client.connect();
    await client.db(dbName).dropDatabase();
  } catch {
    // Best effort: a private FerretDB goes away with its scratch directory anyway.
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** A dispatcher process on a free gRPC port. */
export async function startDispatcherProcess(nats: string, env: Record<string, string> = {}): Promise<{ proc: SpawnedProcess; address: string }> {
  const port = await freePort();
  const proc = await startApp('dispatcher', { NATS_URL: nats, TOOLHUB_GRPC_PORT: String(port), TOOLHUB_MCP_PORT: '0', ...env }, /dispatcher listening/);
  return { proc, address: `127.0.0.1:${port}` };
}

type Unary<Req, Res> = (req: Partial<Req>, options?: { deadlineMs?: number }) => Promise<Res>;

/** The ToolHub gRPC test client plus SearchTools and GetPreloadSet. */
export interface AgentClient extends TestClient {
  searchTools: Unary<SearchToolsRequest, SearchToolsResponse>;
  getPreloadSet: Unary<GetPreloadSetRequest, GetPreloadSetResponse>;
}

export function connectAgent(address: string): AgentClient {
  const base = connectClient(address);
  const unary =
    <Req, Res>(method: 'searchTools' | 'getPreloadSet', defaults: Req): Unary<Req, Res> =>
    (req, options = {}) =>
      new Promise<Res>((resolve, reject) => {
        const fn = (base.raw as unknown as Record<string, (...a: unknown[]) => void>)[method]!.bind(base.raw);
        fn({ ...defaults, ...req }, new Metadata(), { deadline: new Date(Date.now() + (options.deadlineMs ?? 10_000)) }, (err: CallError | null, res: Res) => (err ? reject(err) : resolve(res)));
      });
  return {
    ...base,
    searchTools: unary<SearchToolsRequest, SearchToolsResponse>('searchTools', { queries: [], provider: '', path: '', limit: 0, mode: 0, explain: false }),
    getPreloadSet: unary<GetPreloadSetRequest, GetPreloadSetResponse>('getPreloadSet', { format: 0 }),
  };
}

/** The registry's admin API, promisified (only what the end-to-end tests read). */
export interface AdminClient {
  listRegisteredTools(provider: string, path?: string): Promise<RegisteredTool[]>;
  /** The tool's statistics, or undefined while it has none. */
  getToolStats(toolId: string): Promise<ToolStats | undefined>;
  /** The registry's catalog sync state of `provider`, with what it quarantined. */
  getCatalogStatus(provider: string): Promise<CatalogSyncStatus | undefined>;
  close(): void;
}

export function adminClient(address: string): AdminClient {
  const raw = new RegistryAdminClient(address, credentials.createInsecure());
  const deadline = () => ({ deadline: Date.now() + 10_000 });
  return {
    // Follows next_page_token: a real-catalog registry holds more than one 4 MiB reply.
    listRegisteredTools: async (provider, path = '') => {
      const tools: RegisteredTool[] = [];
      let pageToken = '';
      do {
        const res = await new Promise<ListRegisteredToolsResponse>((resolve, reject) =>
          raw.listRegisteredTools({ provider, path, pageSize: 500, pageToken }, new Metadata(), deadline(), (err, r: ListRegisteredToolsResponse) => (err ? reject(err) : resolve(r))),
        );
        tools.push(...res.tools);
        pageToken = res.nextPageToken;
      } while (pageToken !== '');
      return tools;
    },
    getToolStats: (toolId) => new Promise((resolve) => raw.getToolStats({ toolId }, new Metadata(), deadline(), (err, res) => resolve(err ? undefined : res.stats))),
    getCatalogStatus: (provider) =>
      new Promise((resolve, reject) => raw.getCatalogStatus({ provider }, new Metadata(), deadline(), (err, res) => (err ? reject(err) : resolve(res.providers.find((p) => p.provider === provider))))),
    close: () => raw.close(),
  };
}

/**
 * Resolves once the registry has counted every `tool.called` event published so far, and returns
 * the calls counted for `toolIds` at that moment. A registry with a new durable consumer first
 * replays the whole event stream — with shared services (NATS_URL) it holds earlier runs' events,
 * for the same tool ids — so exact counts are deltas from this baseline. It publishes a marker
 * event on each of the registry's two consumers (ungrouped, and grouped with a claim group) and
 * waits for their statistics: a consumer keeps stream order, so every earlier event is counted by then.
 */
export async function statsBaseline(natsUrl: string, admin: AdminClient, toolIds: readonly string[], timeoutMs = 60_000): Promise<Map<string, ToolStats | undefined>> {
  const bus = await NatsBus.connect({ servers: natsUrl, name: 'e2e-stats-baseline' });
  const marker = (): ToolCalled => ({
    eventId: randomUUID(),
    toolId: `e2e:marker_${randomUUID().replace(/-/g, '')}`,
    provider: 'e2e',
    name: '',
    status: 'ok',
    errorCode: 0,
    latencyMs: 1,
    attempts: 1,
    fallbackUsed: '',
    caller: 'e2e',
    timestampUnixMs: Date.now(),
    searchId: '',
    claimGroup: '',
  });
  const single = marker();
  const grouped = { ...marker(), claimGroup: `${Date.now()}-e2e-${randomUUID().slice(0, 8)}` };
  for (const m of [single, grouped]) m.name = m.toolId.slice('e2e:'.length);
  try {
    await bus.publishEvent(eventSubject('tool.called', 'e2e'), ToolCalled.encode(single).finish(), { msgId: single.eventId });
    const message = toolCalledMessage('e2e', [{ eventId: grouped.eventId, data: ToolCalled.encode(grouped).finish() }], { grouped: true });
    await bus.publishEvent(message.subject, message.data, { msgId: message.msgId });
  } finally {
    await bus.close();
  }
  for (const m of [single, grouped]) {
    await waitFor(() => admin.getToolStats(m.toolId), { timeoutMs, intervalMs: 100, message: 'the registry to catch up with the event stream' });
  }
  return new Map(await Promise.all(toolIds.map(async (id) => [id, await admin.getToolStats(id)] as const)));
}

/** The text of a run's content blocks, joined. */
export function textOf(res: { content: Array<{ text?: string }> }): string {
  return res.content.map((b) => b.text ?? '').join('\n');
}
