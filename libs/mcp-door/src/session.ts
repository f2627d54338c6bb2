/**
 * One MCP session's view of ToolHub: the tools its `tools/list` shows and how its `tools/call`s run.
 *
 * Default view: the four meta-tools (agent-kit's META_TOOLS, the one source both doors render),
 * the preload set, then tools the session looked up with tool_info (agent-kit's LoadedTools: a
 * token budget, least recently used released first). Flat view: the meta-tools and every tool the
 * principal may see, named `provider__name`.
 */
import { exposedToolFromInfo, isMetaToolName, LoadedTools, type McpTool, renderTools, ToolCallExecutor } from '@toolhub/agent-kit';
import type { Principal } from '@toolhub/auth';
import { GetPreloadSetRequest, MAX_PAGE_SIZE, parseToolId, type PreloadTool, type RunProgress, RunStatus, type RunToolRequest, type ToolInfo, toolId } from '@toolhub/contracts';

import { apiFor, callContextOf, type DoorBackend, runRequest, withProtoDefaults } from './backend';
import { type DoorCallResult, runFailureResult, runResult } from './call-result';
import type { ResolvedMcpDoorOptions } from './options';

/** Per-call extras from the MCP request. */
export interface SessionCall {
  signal?: AbortSignal;
  /** The request's `_meta` (idempotency key, caller, timeout). */
  meta?: Record<string, unknown>;
  traceHeaders?: Readonly<Record<string, string>>;
  /** Set when the request carried `_meta.progressToken`: receives the run's progress (see progress.ts). */
  onProgress?: (update: RunProgress) => void;
}

/** `_meta` keys the door reads on `tools/call`. */
export const META_IDEMPOTENCY_KEY = 'io.toolhub/idempotency-key';
export const META_TIMEOUT_MS = 'io.toolhub/timeout-ms';

type Args = Record<string, unknown>;

function str(v: unknown): string {
  return typeof v === 'string' ? v.trim() : '';
}

/** The principal's preload set; empty when the registry cannot answer in time (the meta-tools still reach every tool). */
export async function fetchPreloadSet(backend: DoorBackend, principal: Principal, timeoutMs: number): Promise<PreloadTool[]> {
  try {
    const res = await backend.getPreloadSet(withProtoDefaults(GetPreloadSetRequest, {}), callContextOf({ principal }, timeoutMs));
    return res.tools;
  } catch {
    return [];
  }
}

/** The tools and calls of one MCP session (see the module comment). */
export class DoorSession {
  private loaded: LoadedTools | undefined;
  private starting: Promise<LoadedTools> | undefined;
  private readonly executor: ToolCallExecutor;
  private readonly lazyExecutor: { loaded?: LoadedTools } = {};
  private flat: { tools: McpTool[]; at: number } | undefined;
  /** Last time the session was used, epoch ms (idle expiry). */
  lastUsed = Date.now();

  constructor(
    private readonly backend: DoorBackend,
    readonly principal: Principal,
    private readonly options: ResolvedMcpDoorOptions,
    /** Label under the principal in tool.called events (the MCP client's name). */
    public caller = 'mcp',
    /** The principal's preload set, when the door shares one fetch between sessions. @default fetched per session */
    private readonly sharedPreload?: () => Promise<PreloadTool[]>,
  ) {
    // The executor reads `loaded` at call time; it is set once the preload set arrived.
    this.executor = new ToolCallExecutor(apiFor(backend, { principal }), this.lazyExecutor as { loaded?: LoadedTools });
  }

  /** Discovered tools exposed now (the loaded-tools gauge). */
  get loadedCount(): number {
    return this.loaded?.discovered.length ?? 0;
  }

  /** The session's tools, created on first use from the principal's preload set. */
  private tools(): Promise<LoadedTools> {
    if (this.loaded) return Promise.resolve(this.loaded);
    this.starting ??= this.fetchPreload().then((preload) => {
      this.loaded = new LoadedTools(preload, { tokenBudget: this.options.loadedTokenBudget, measureFormat: 'mcp', keepUsedLowImportance: Number.MAX_SAFE_INTEGER });
      this.lazyExecutor.loaded = this.loaded;
      return this.loaded;
    });
    return this.starting;
  }

  private async fetchPreload(): Promise<PreloadTool[]> {
    if (this.sharedPreload) return this.sharedPreload();
    return fetchPreloadSet(this.backend, this.principal, this.options.preloadTimeoutMs);
  }

  /** The `tools/list` entries, byte-stable (canonical key order). */
  async listTools(): Promise<McpTool[]> {
    const loaded = await this.tools();
    if (this.options.view === 'flat') return this.flatTools(loaded);
    return renderTools(loaded.tools(), 'mcp').tools;
  }

  /** Names listed now, to tell whether a call changed the list. */
  listSignature(): string {
    if (!this.loaded || this.options.view === 'flat') return '';
    return this.loaded.discovered.map((d) => d.tool.name).join(',');
  }

  private async flatTools(loaded: LoadedTools): Promise<McpTool[]> {
    if (this.flat && Date.now() - this.flat.at < this.options.flatCacheMs) return this.flat.tools;
    const ctx = () => callContextOf({ principal: this.principal }, this.options.metadataTimeoutMs);
    const root = await this.backend.listTools({ provider: '', path: '', recursive: false, pageSize: 0, pageToken: '' }, ctx());
    const refs: Array<{ provider: string; name: string }> = [];
    for (const p of root.categories) {
      let pageToken = '';
      do {
        const page = await this.backend.listTools({ provider: p.name, path: '', recursive: true, pageSize: MAX_PAGE_SIZE, pageToken }, ctx());
        for (const t of page.tools) refs.push({ provider: p.name, name: t.name });
        pageToken = page.nextPageToken;
      } while (pageToken);
    }
    const infos: ToolInfo[] = [];
    let next = 0;
    const worker = async () => {
      while (next < refs.length) {
        const ref = refs[next++]!;
        try {
          const res = await this.backend.getToolInfo(ref, ctx());
          if (res.tool) infos.push(res.tool);
        } catch {
          // A tool that vanished or is hidden between list and info is left out.
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(16, refs.length) }, worker));
    const order = new Map(refs.map((r, i) => [toolId(r.provider, r.name), i]));
    infos.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    const exposed = infos.map((info) => exposedToolFromInfo(info, loaded.names));
    const tools = renderTools([...loaded.prefix.filter((t) => isMetaToolName(t.name)), ...exposed], 'mcp').tools;
    this.flat = { tools, at: Date.now() };
    return tools;
  }

  /** Runs one `tools/call`; never throws (failures are `isError` results). */
  async call(name: string, rawArgs: Args | undefined, extra: SessionCall = {}): Promise<DoorCallResult> {
    this.lastUsed = Date.now();
    const loaded = await this.tools();
    const args = rawArgs ?? {};
    const target = this.targetOf(loaded, name, args);
    if (target) {
      const result = await this.run(target.ref, target.args, target.timeoutMs, extra);
      if (target.typed) loaded.recordRun(name);
      return result;
    }
    const res = await this.executor.execute({ name, arguments: args }, { signal: extra.signal });
    return { content: [{ type: 'text', text: res.content }], ...(res.isError ? { isError: true } : {}) };
  }

  /**
   * The RunToolRequest a `tools/call` of `name` makes (what a task starts as an async run), or
   * undefined when the call names no tool run: a meta-tool other than tool_run, an unknown name,
   * or tool_run with unusual arguments (which only agent-kit's executor answers).
   */
  async runRequestOf(name: string, rawArgs: Args | undefined, meta: Record<string, unknown> = {}): Promise<{ request: RunToolRequest; toolId: string } | undefined> {
    this.lastUsed = Date.now();
    const loaded = await this.tools();
    const target = this.targetOf(loaded, name, rawArgs ?? {});
    if (!target) return undefined;
    if (target.typed) loaded.recordRun(name);
    return this.requestFor(target.ref, target.args, target.timeoutMs, meta);
  }

  /** Whether a typed `name` is listed for this session now (it can be called, or started as a task). */
  async isTyped(name: string): Promise<boolean> {
    return !isMetaToolName(name) && (await this.tools()).resolve(name) !== undefined;
  }

  private targetOf(loaded: LoadedTools, name: string, args: Args): { ref: { provider: string; name: string }; args: Args; timeoutMs: number; typed: boolean } | undefined {
    if (name === 'tool_run') {
      const ref = this.refOf(args);
      const runArgs = args.arguments;
      const timeoutMs = typeof args.timeout_ms === 'number' && Number.isInteger(args.timeout_ms) && args.timeout_ms >= 0 ? args.timeout_ms : undefined;
      // Anything unusual (no tool named, arguments as text, …): agent-kit's executor answers it with its own wording.
      if (ref && runArgs !== null && typeof runArgs === 'object' && !Array.isArray(runArgs) && (args.timeout_ms === undefined || timeoutMs !== undefined)) {
        return { ref, args: runArgs as Args, timeoutMs: timeoutMs ?? 0, typed: false };
      }
    } else if (!isMetaToolName(name)) {
      const ref = loaded.resolve(name);
      if (ref) return { ref, args, timeoutMs: 0, typed: true };
    }
    return undefined;
  }

  private refOf(args: Args): { provider: string; name: string } | undefined {
    const provider = str(args.provider);
    const name = str(args.name) || str(args.id);
    const asId = parseToolId(name);
    if (asId) return asId;
    if (provider && name) return { provider, name };
    return name ? this.loaded?.resolve(name) : undefined;
  }

  /** The RunToolRequest of a call of `ref` (timeout and idempotency key from `_meta`), as sync calls and tasks make it. */
  private requestFor(ref: { provider: string; name: string }, args: Args, timeoutMs: number, meta: Record<string, unknown>): { request: RunToolRequest; toolId: string } {
    const id = toolId(ref.provider, ref.name);
    const metaTimeout = Number(meta[META_TIMEOUT_MS]);
    const request = runRequest({
      provider: ref.provider,
      name: ref.name,
      arguments: args,
      timeoutMs: timeoutMs || (Number.isInteger(metaTimeout) && metaTimeout > 0 ? metaTimeout : 0),
      idempotencyKey: str(meta[META_IDEMPOTENCY_KEY]),
      caller: this.caller,
      searchId: this.executor.searches?.searchIdFor(id) ?? '',
    });
    return { request, toolId: id };
  }

  private async run(ref: { provider: string; name: string }, args: Args, timeoutMs: number, extra: SessionCall): Promise<DoorCallResult> {
    const { request: req, toolId: id } = this.requestFor(ref, args, timeoutMs, extra.meta ?? {});
    const searchId = req.searchId;
    try {
      const ctx = callContextOf({ principal: this.principal, signal: extra.signal, traceHeaders: extra.traceHeaders });
      if (extra.onProgress) ctx.onProgress = extra.onProgress;
      const res = await this.backend.runTool(req, ctx);
      if (searchId && res.status === RunStatus.RUN_STATUS_OK) this.executor.searches?.consumed(id, searchId);
      return runResult(res, id, this.options.maxResultChars);
    } catch (err) {
      return runFailureResult(err, this.options.maxResultChars);
    }
  }
}

