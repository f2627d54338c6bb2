/**
 * The MCP adapter: any number of MCP servers behind ToolHub's three operations. Each server's tools
 * are mounted at its category path under `<alias>_<tool>` names with snake_case parameters; runs are
 * mapped back to native names and sent to the one connection of that server.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { type AdapterDefinition, listCatalog, type ListResult, type QuarantineEntry, type RunContext, type ToolResult, toolNotFound } from '@toolhub/adapter-sdk';
import type { ToolInfo } from '@toolhub/contracts';

import type { McpAdapterConfig } from './config';
import { type BackoffOptions, type ConnectionStatus, McpServerConnection, type ToolsReason } from './connection';
import { type McpLogger, silentLogger } from './logger';
import { type McpToolEntry, toToolEntry, toToolResult } from './mapping';
import { assignToolNames, toolFilter } from './names';
import { redactorForServers } from './secrets';

/** What changed in one server's tools. Names are ToolHub names; never carries a secret. */
export interface CatalogChangeEvent {
  readonly provider: string;
  readonly alias: string;
  /** `list_changed`: the server said so; `connected`/`reconnected`: a (re)connect found different tools. */
  readonly reason: ToolsReason;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Tools whose info (and so version) changed. */
  readonly changed: readonly string[];
}

export interface McpAdapterOptions {
  /** @default silent */
  logger?: McpLogger;
  /**
   * Called after a server's tool list was read again: always on `notifications/tools/list_changed`,
   * and on a (re)connect that found a different tool set. Call `service.announce()` here, so the
   * registry updates the catalog and invalidates caches downstream. Errors are logged.
   */
  onCatalogChanged?: (event: CatalogChangeEvent) => void | Promise<void>;
  /** How ToolHub introduces itself to MCP servers. @default { name: 'toolhub', version: '0.1.0' } */
  clientInfo?: { name: string; version: string };
  /** Reconnection timing. */
  backoff?: BackoffOptions;
}

/** An {@link AdapterDefinition} plus the lifecycle of the MCP connections. */
export interface McpAdapter extends AdapterDefinition {
  /** Connects the servers configured with `connect: eager`. Never throws: failures are logged and retried. */
  start(): Promise<void>;
  /** One row per configured server. */
  status(): ConnectionStatus[];
  /**
   * What is left out, with why: servers that could not be started, connected or listed (while they
   * have no known tools) and single tools that broke a rule (schema depth/size, over `maxTools`).
   * Each was logged once when found.
   */
  quarantined(): QuarantineEntry[];
  /** Closes every connection and stops every stdio server. Idempotent. */
  close(): Promise<void>;
}

/**
 * Creates the adapter. Nothing connects until {@link McpAdapter.start} (eager servers) or the first
 * list/info/run/catalog call (every server).
 */
export function createMcpAdapter(config: McpAdapterConfig, options: McpAdapterOptions = {}): McpAdapter {
  const provider = config.provider;
  const log = options.logger ?? silentLogger;
  const redactor = redactorForServers(config.servers);
  const entries = new Map<string, Map<string, McpToolEntry>>(); // alias → name → entry
  const byName = new Map<string, McpToolEntry>();
  const infos = new Map<string, ToolInfo>();
  const reported = new Set<string>();
  const quarantined = new Map<string, QuarantineEntry[]>(); // alias → tools left out at the last listing
  const backoff = { initialMs: 200, maxMs: 30_000, stableAfterMs: 10_000, ...options.backoff };
  const clientInfo = options.clientInfo ?? { name: 'toolhub', version: '0.1.0' };
  for (const q of config.quarantined ?? []) log.warn({ alias: q.alias, rule: q.rule, reason: q.reason }, `MCP server quarantined: ${q.reason}; the other servers serve`);

  const rebuild = (): void => {
    byName.clear();
    infos.clear();
    for (const server of entries.values()) {
      for (const [name, e] of server) {
        byName.set(name, e);
        infos.set(name, e.info);
      }
    }
  };

  const update = (conn: McpServerConnection, tools: Tool[], reason: ToolsReason): void => {
    const server = conn.server;
    const wanted = toolFilter(server.include, server.exclude);
    const left: QuarantineEntry[] = [];
    const quarantine = (tool: string, rule: string, why: string): void => {
      left.push({ source: server.alias, tool, rule, reason: why });
      report(`${server.alias}\u0000quarantine\u0000${tool}\u0000${why}`, { alias: server.alias, tool: tool.slice(0, 200) }, `MCP tool quarantined: ${why}`);
    };
    let overflow: QuarantineEntry | undefined;
    let usable = tools.filter((t) => {
      if (typeof t.name !== 'string') return false;
      if (!wanted(t.name)) return false;
      if (t.execution?.taskSupport !== 'required') return true;
      report(`${server.alias}\u0000task\u0000${t.name}`, { alias: server.alias, tool: t.name }, 'MCP tool can only run as a task (tasks API), which ToolHub does not use; skipped', 'info');
      return false;
    });
    if (usable.length > server.maxTools) {
      // Sorted, so the same tools are served on every start whatever order the server lists them in.
      const sorted = [...usable].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
      const over = sorted.slice(server.maxTools);
      usable = sorted.slice(0, server.maxTools);
      const why = `the server lists ${tools.length} tools; at most ${server.maxTools} are served (maxTools), so ${over.length} are left out: ${over[0]!.name.slice(0, 60)} … ${over[over.length - 1]!.name.slice(0, 60)} (by sorted name)`;
      // One entry and one line for the whole overflow, not 9,000: it would bury every other report.
      overflow = { source: server.alias, rule: 'max_tools', reason: why };
      report(`${server.alias}\u0000maxTools\u0000${tools.length}`, { alias: server.alias, listed: tools.length, served: server.maxTools, quarantined: over.length }, `MCP server lists too many tools: ${why}`);
    }
    const names = assignToolNames(server.alias, usable.map((t) => t.name));
    const next = new Map<string, McpToolEntry>();
    for (const tool of usable) {
      let built: ReturnType<typeof toToolEntry>;
      try {
        built = toToolEntry(provider, server, tool, names.toName.get(tool.name)!);
      } catch (err) {
        // Whatever a tool definition holds, it costs only that tool.
        quarantine(tool.name, 'mapping', `its definition could not be mapped (${redactor.message(err).slice(0, 300)})`);
        continue;
      }
      if (built.entry === undefined) {
        quarantine(tool.name, built.quarantined.rule, built.quarantined.reason);
        continue;
      }
      const { entry, problem } = built;
      if (problem) report(`${entry.info.name}\u0000${entry.info.version}`, { alias: server.alias, tool: tool.name, name: entry.info.name }, problem);
      next.set(entry.info.name, entry);
    }
    quarantined.set(server.alias, overflow ? [...left, overflow] : left);
    const prev = entries.get(server.alias) ?? new Map<string, McpToolEntry>();
    const added = [...next.keys()].filter((n) => !prev.has(n));
    const removed = [...prev.keys()].filter((n) => !next.has(n));
    const changed = [...next.keys()].filter((n) => prev.has(n) && prev.get(n)!.info.version !== next.get(n)!.info.version);
    entries.set(server.alias, next);
    rebuild();
    if (reason !== 'list_changed' && added.length + removed.length + changed.length === 0) return;
    log.info({ alias: server.alias, reason, added: added.length, removed: removed.length, changed: changed.length, tools: next.size }, 'MCP catalog changed');
    const event: CatalogChangeEvent = { provider, alias: server.alias, reason, added, removed, changed };
    if (options.onCatalogChanged) {
      Promise.resolve()
        .then(() => options.onCatalogChanged?.(event))
        .catch((err: unknown) => log.warn({ alias: server.alias, error: redactor.message(err) }, 'onCatalogChanged failed'));
    }
  };

  /** Logs a start-up problem once (parameter collisions, unsupported tools), not on every re-list. */
  const report = (key: string, fields: object, message: string, level: 'info' | 'warn' = 'warn'): void => {
    if (reported.has(key)) return;
    reported.add(key);
    log[level](fields, message);
  };

  const connections: McpServerConnection[] = config.servers.map((server) => {
    const conn: McpServerConnection = new McpServerConnection(server, { logger: log, redactor, clientInfo, backoff, onTools: (tools, reason) => update(conn, tools, reason) });
    return conn;
  });

  /** Makes sure every server was tried; one that is down keeps its last known tools. */
  const connectAll = async (which = connections): Promise<void> => {
    await Promise.all(which.map((c) => c.ready().catch(() => undefined)));
  };

  /** The connection whose tools are named `<alias>_...` (aliases never prefix each other). */
  const connectionFor = (name: string): McpServerConnection | undefined => connections.find((c) => name.startsWith(`${c.alias}_`));

  const lookup = async (name: string): Promise<McpToolEntry> => {
    const known = byName.get(name);
    if (known) return known;
    // Lazy servers: connect the one the name points at, or all of them for a useful "did you mean".
    const conn = connectionFor(name);
    if (!conn) {
      await connectAll();
      throw toolNotFound(provider, name, infos);
    }
    const failure = await conn.ready().then(
      () => undefined,
      (err: unknown) => err,
    );
    const entry = byName.get(name);
    if (entry) return entry;
    // Its server is down and has never told us its tools: say so, rather than "no such tool".
    if (failure && !entries.get(conn.alias)?.size) throw failure;
    await connectAll();
    throw toolNotFound(provider, name, infos);
  };

  let closed: Promise<void> | undefined;
  return {
    provider,
    // serveAdapter redacts everything it sends and logs with it too (a backstop to the redaction here).
    redactor,
    async start() {
      await connectAll(connections.filter((c) => c.server.connect === 'eager'));
    },
    async catalog() {
      await connectAll();
      return [...infos.values()];
    },
    async listTools(path: string, recursive: boolean): Promise<ListResult> {
      await connectAll();
      return listCatalog(infos.values(), path, recursive);
    },
    async getToolInfo(name: string): Promise<ToolInfo> {
      return (await lookup(name)).info;
    },
    async runTool(name: string, args: Record<string, unknown>, ctx: RunContext): Promise<ToolResult> {
      const entry = await lookup(name);
      const conn = connections.find((c) => c.alias === entry.alias)!;
      const result = await conn.call(entry.native, entry.params.toNative(args), { signal: ctx.signal, deadline: ctx.deadline, name, retrySafe: entry.retrySafe, onProgress: ctx.progress });
      return toToolResult(result, redactor);
    },
    async health() {
      const rows = connections.map((c) => c.status());
      const failing = rows.filter((r) => r.state === 'backoff');
      const detail = rows.map((r) => `${r.alias}: ${r.state}${r.lastError && r.state === 'backoff' ? ` (${r.lastError})` : ''}`).join('; ');
      return { healthy: failing.length === 0, detail: detail || 'no MCP servers configured' };
    },
    status() {
      return connections.map((c) => c.status());
    },
    quarantined() {
      const sources: QuarantineEntry[] = connections
        .map((c) => c.status())
        .filter((r) => r.lastError !== undefined && r.state !== 'ready' && r.state !== 'closed' && !entries.get(r.alias)?.size)
        .map((r) => ({ source: r.alias, rule: 'load', reason: `could not be started, connected or listed: ${r.lastError}` }));
      // Servers left out at load (a package not installed), with where it was looked for.
      const unresolved: QuarantineEntry[] = (config.quarantined ?? []).map((q) => ({ source: q.alias, rule: q.rule, reason: q.reason }));
      return [...unresolved, ...sources, ...[...quarantined.values()].flat()];
    },
    close() {
      closed ??= Promise.all(connections.map((c) => c.close())).then(() => undefined);
      return closed;
    },
  };
}
