/** Settings of the MCP door, their defaults (filled in one place) and their environment variables. */
import { zBoolean, zDuration, zList } from '@toolhub/config';
import { DEFAULT_ARGUMENT_LIMITS } from '@toolhub/contracts';
import { z } from 'zod';

/** Properties of a tools/call message besides its arguments (jsonrpc, id, method, params, name, arguments, _meta…). */
export const ENVELOPE_NODES = 64;

/** What `tools/list` shows: the meta-tools + preload set + looked-up tools, or every visible tool. */
export type McpView = 'default' | 'flat';

export interface McpDoorOptions {
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 = any free port. @default 50055 */
  port?: number;
  /** @default 'default' */
  view?: McpView;
  /** No sessions: every POST is answered on its own (replicas behind a load balancer without stickiness). @default false */
  stateless?: boolean;
  /** Answer POSTs with one JSON body instead of an SSE stream. @default false */
  jsonResponse?: boolean;
  /** Extra `Origin` values allowed besides loopback ones (DNS rebinding protection). @default [] */
  allowedOrigins?: string[];
  /** Most sessions kept; the least recently used one is closed to make room. @default 1000 */
  maxSessions?: number;
  /** A session unused this long is closed. @default 1800000 (30 min) */
  sessionIdleMs?: number;
  /** Largest POST body, bytes. @default 4194304 */
  maxBodyBytes?: number;
  /**
   * Most properties and array items in a POST body, counted before it is parsed (the dispatcher's
   * TOOLHUB_MAX_ARGUMENT_NODES plus room for the JSON-RPC envelope, when the app passes it).
   * @default 10000 + 64
   */
  maxBodyNodes?: number;
  /** Token budget of tools a session looked up (agent-kit's LoadedTools). @default 8000 */
  loadedTokenBudget?: number;
  /** Longest result text. @default 16000 */
  maxResultChars?: number;
  /** Deadline of the preload-set fetch when a session starts. @default 3000 */
  preloadTimeoutMs?: number;
  /** Deadline of list/info calls building the flat view. @default 10000 */
  metadataTimeoutMs?: number;
  /** How long a session's flat view is reused. @default 30000 */
  flatCacheMs?: number;
  /**
   * Canonical URL of this MCP resource (protected-resource metadata `resource`; the JWT audience
   * bearer tokens must carry). @default `http://<host>:<port>/mcp`
   */
  resourceUrl?: string;
  /** Authorization servers named in the protected-resource metadata. @default [] (JWT issuer when set by the app) */
  authorizationServers?: string[];
  /** MCP tasks: the `pollInterval` suggested to clients polling `tasks/get`. @default 1000 */
  taskPollIntervalMs?: number;
  /** MCP tasks: tasks per `tasks/list` page. @default 50 */
  taskListPageSize?: number;
  /** MCP tasks: runs a session follows at once to send `notifications/tasks/status` and progress (polling works for every task). @default 32 */
  maxTaskWatchers?: number;
  /** MCP tasks: runs all sessions of the door follow at once (each re-reads the run store every 2 s). @default 512 */
  maxTaskWatchersTotal?: number;
}

export type ResolvedMcpDoorOptions = Required<Omit<McpDoorOptions, 'resourceUrl'>> & { resourceUrl: string | undefined };

/** Options with defaults filled in. */
export function withMcpDefaults(o: McpDoorOptions = {}): ResolvedMcpDoorOptions {
  return {
    host: o.host ?? '127.0.0.1',
    port: o.port ?? 50055,
    view: o.view ?? 'default',
    stateless: o.stateless ?? false,
    jsonResponse: o.jsonResponse ?? false,
    allowedOrigins: o.allowedOrigins ?? [],
    maxSessions: o.maxSessions ?? 1000,
    sessionIdleMs: o.sessionIdleMs ?? 30 * 60_000,
    maxBodyBytes: o.maxBodyBytes ?? 4 * 1024 * 1024,
    maxBodyNodes: o.maxBodyNodes ?? DEFAULT_ARGUMENT_LIMITS.maxNodes + ENVELOPE_NODES,
    loadedTokenBudget: o.loadedTokenBudget ?? 8000,
    maxResultChars: o.maxResultChars ?? 16_000,
    preloadTimeoutMs: o.preloadTimeoutMs ?? 3000,
    metadataTimeoutMs: o.metadataTimeoutMs ?? 10_000,
    flatCacheMs: o.flatCacheMs ?? 30_000,
    resourceUrl: o.resourceUrl,
    authorizationServers: o.authorizationServers ?? [],
    taskPollIntervalMs: o.taskPollIntervalMs ?? 1000,
    taskListPageSize: o.taskListPageSize ?? 50,
    maxTaskWatchers: o.maxTaskWatchers ?? 32,
    maxTaskWatchersTotal: o.maxTaskWatchersTotal ?? 512,
  };
}

/** Config fields for `defineConfig` (spread into the dispatcher's and the one-process spec). */
export function mcpConfigFields() {
  return {
    mcpDoor: { env: 'TOOLHUB_MCP_DOOR', schema: zBoolean().default(true), description: 'Serve the MCP front door (Streamable HTTP at /mcp)' },
    mcpHost: { env: 'TOOLHUB_MCP_HOST', schema: z.string().min(1).default('127.0.0.1'), description: 'Interface the MCP door listens on (0.0.0.0 in containers; needs auth)' },
    mcpPort: { env: 'TOOLHUB_MCP_PORT', schema: z.coerce.number().int().min(0).max(65535).default(50055), description: 'Port of the MCP door (path /mcp)' },
    mcpView: { env: 'TOOLHUB_MCP_VIEW', schema: z.enum(['default', 'flat']).default('default'), description: 'tools/list: default (meta-tools + preload + looked-up tools) or flat (every visible tool as provider__name)' },
    mcpStateless: { env: 'TOOLHUB_MCP_STATELESS', schema: zBoolean().default(false), description: 'No MCP sessions (replicas without sticky load balancing); tools looked up are not added to tools/list' },
    mcpJsonResponse: { env: 'TOOLHUB_MCP_JSON_RESPONSE', schema: zBoolean().default(false), description: 'Answer POSTs with JSON instead of an SSE stream' },
    mcpAllowedOrigins: { env: 'TOOLHUB_MCP_ALLOWED_ORIGINS', schema: zList(z.string().min(1)).default([]), description: 'Browser Origins allowed besides loopback ones, comma-separated (DNS rebinding protection)' },
    mcpMaxSessions: { env: 'TOOLHUB_MCP_MAX_SESSIONS', schema: z.coerce.number().int().min(1).max(1_000_000).default(1000), description: 'Most MCP sessions kept; the least recently used is closed to make room' },
    mcpSessionIdle: { env: 'TOOLHUB_MCP_SESSION_IDLE', schema: zDuration({ min: '1s', max: '7d' }).default(30 * 60_000), description: 'An MCP session unused this long is closed ("30m")' },
    mcpTokenBudget: { env: 'TOOLHUB_MCP_TOKEN_BUDGET', schema: z.coerce.number().int().min(0).max(1_000_000).default(8000), description: 'Tokens of looked-up tools a session lists; least recently used released first', secret: false },
    mcpResourceUrl: { env: 'TOOLHUB_MCP_RESOURCE_URL', schema: z.string().url().optional(), description: 'Public URL of /mcp: protected-resource metadata and the JWT audience MCP tokens must carry (default http://<host>:<port>/mcp)' },
  };
}

/** The parsed values of {@link mcpConfigFields}. */
export interface McpSettings {
  mcpDoor: boolean;
  mcpHost: string;
  mcpPort: number;
  mcpView: McpView;
  mcpStateless: boolean;
  mcpJsonResponse: boolean;
  mcpAllowedOrigins: string[];
  mcpMaxSessions: number;
  mcpSessionIdle: number;
  mcpTokenBudget: number;
  mcpResourceUrl?: string;
}

/** Door options from settings. */
export function mcpOptionsFrom(s: McpSettings): McpDoorOptions {
  return {
    host: s.mcpHost,
    port: s.mcpPort,
    view: s.mcpView,
    stateless: s.mcpStateless,
    jsonResponse: s.mcpJsonResponse,
    allowedOrigins: s.mcpAllowedOrigins,
    maxSessions: s.mcpMaxSessions,
    sessionIdleMs: s.mcpSessionIdle,
    loadedTokenBudget: s.mcpTokenBudget,
    resourceUrl: s.mcpResourceUrl,
  };
}
