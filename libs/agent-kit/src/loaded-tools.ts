/**
 * The tools a model sees, in prompt order:
 *
 *   [meta-tools][preload set]  ← the stable prefix: fixed at creation, never reordered or changed
 *   [discovered tools...]      ← tools whose info was fetched, appended in load order
 *
 * Discovered tools stay exposed (callable by their exposed name) until their tokens would exceed the
 * budget; then the least recently used ones are released, low importance before normal before core.
 * A low-importance tool is also released soon after it was run: only the `keepUsedLowImportance`
 * most recently run ones stay. A released tool can still be called by its exposed name (the model may
 * find it in the conversation), and a new tool_info exposes it again, at the end.
 */
import { canonicalJson, importanceName, type ImportanceName, type PreloadTool, type ToolInfo } from '@toolhub/contracts';

import { AgentKitError } from './errors';
import { ASYNC_META_TOOLS, type ExposedTool, isMetaToolName, META_TOOLS } from './meta-tools';
import { normalizeInputSchema, renderTools, TOOL_FORMATS, type ToolFormat } from './render';
import { ExposedNameTable, type ToolRef } from './tool-names';
import { outputSchemaOf } from './output-schema';

/** Counts the tokens of a text. Plug in a real tokenizer (e.g. js-tiktoken) for exact budgets. */
export type TokenCounter = (text: string) => number;

/** A rough, dependency-free counter: one token per 4 UTF-8 bytes (JSON-heavy text averages about that). */
export const estimateTokens: TokenCounter = (text) => Math.ceil(Buffer.byteLength(text, 'utf8') / 4);

/** Options of {@link LoadedTools}. */
export interface LoadedToolsOptions {
  /** Most tokens the discovered (appended) tools may take in the tool list; the prefix is not counted. @default 8000 */
  tokenBudget?: number;
  /** How tokens are counted. @default estimateTokens (bytes / 4) */
  countTokens?: TokenCounter;
  /** The format whose rendering is counted. @default 'openai-chat' */
  measureFormat?: ToolFormat;
  /** How many run low-importance tools stay exposed; older ones are released after use. @default 1 */
  keepUsedLowImportance?: number;
  /**
   * Offer the async-run meta-tools `tool_start` and `tool_result` after the four (long runs that
   * outlive one model turn; the server needs async runs on). @default false
   */
  asyncRuns?: boolean;
}

/** A discovered tool as kept by the manager. */
export interface DiscoveredTool {
  tool: ExposedTool;
  ref: ToolRef;
  importance: ImportanceName;
  /** Tokens of this tool's rendering in `measureFormat`. */
  tokens: number;
  /** The ToolInfo.version it was loaded at. */
  version: string;
  runs: number;
}

/** What {@link LoadedTools.load} did. */
export interface LoadResult {
  /** The function name the tool is exposed under. */
  exposedName: string;
  /** False when the tool alone is larger than the budget: it stays callable through tool_run only. */
  exposed: boolean;
  /** Exposed names released to make room. */
  released: string[];
}

const RANK: Record<ImportanceName, number> = { low: 0, normal: 1, core: 2 };

/** Provider of the meta-tools' entries in a GetPreloadSet response. */
export const META_TOOL_PROVIDER = 'toolhub';

/** True for a GetPreloadSet entry that is one of the four meta-tools (not an operator's tool). */
export function isPreloadedMetaTool(tool: Pick<PreloadTool, 'provider' | 'name'>): boolean {
  return (tool.provider === META_TOOL_PROVIDER || tool.provider === '') && isMetaToolName(tool.name);
}

/** The exposed form of a tool fetched with tool_info. */
export function exposedToolFromInfo(info: ToolInfo, names: ExposedNameTable): ExposedTool {
  const outputSchema = outputSchemaOf(info);
  return { name: names.register(info.provider, info.name), description: info.description, inputSchema: normalizeInputSchema(info.inputSchema), ...(outputSchema ? { outputSchema } : {}) };
}

/** The exposed form of a preload-set entry. */
export function exposedToolFromPreload(tool: PreloadTool, names: ExposedNameTable): ExposedTool {
  return { name: names.register(tool.provider, tool.name), description: tool.description, inputSchema: normalizeInputSchema(tool.inputSchema) };
}

/** The loaded-tools manager (see the module comment for the policy). */
export class LoadedTools {
  /** Every exposed name handed out, for routing calls back to tools. */
  readonly names = new ExposedNameTable();
  private readonly prefixTools: readonly ExposedTool[];
  private readonly prefixNames: ReadonlySet<string>;
  /** Insertion order = prompt order. */
  private readonly entries = new Map<string, DiscoveredTool>();
  /** Exposed name → logical time of last use; a counter keeps eviction deterministic. */
  private readonly lastUse = new Map<string, number>();
  private clock = 0;
  private readonly o: Required<Omit<LoadedToolsOptions, 'asyncRuns'>>;

  /**
   * @param preload the preload set, in its order (after the meta-tools); meta-tool entries of a
   *   GetPreloadSet response are skipped.
   * @throws AgentKitError invalid_options for bad options or a preload tool listed twice.
   */
  constructor(preload: readonly PreloadTool[] = [], options: LoadedToolsOptions = {}) {
    this.o = {
      tokenBudget: options.tokenBudget ?? 8000,
      countTokens: options.countTokens ?? estimateTokens,
      measureFormat: options.measureFormat ?? 'openai-chat',
      keepUsedLowImportance: options.keepUsedLowImportance ?? 1,
    };
    if (!Number.isInteger(this.o.tokenBudget) || this.o.tokenBudget < 0) throw new AgentKitError('invalid_options', `tokenBudget must be an integer ≥ 0; got ${String(options.tokenBudget)}.`);
    if (!Number.isInteger(this.o.keepUsedLowImportance) || this.o.keepUsedLowImportance < 0) {
      throw new AgentKitError('invalid_options', `keepUsedLowImportance must be an integer ≥ 0; got ${String(options.keepUsedLowImportance)}.`);
    }
    if (!TOOL_FORMATS.includes(this.o.measureFormat)) throw new AgentKitError('invalid_options', `measureFormat must be one of ${TOOL_FORMATS.join(', ')}.`);
    // GetPreloadSet lists the meta-tools too (provider `toolhub`); the kit always puts its own
    // first, since its executor implements exactly those.
    const operatorTools = preload.filter((p) => !isPreloadedMetaTool(p));
    this.prefixTools = Object.freeze([...META_TOOLS, ...(options.asyncRuns ? ASYNC_META_TOOLS : []), ...operatorTools.map((p) => exposedToolFromPreload(p, this.names))]);
    const names = new Set(this.prefixTools.map((t) => t.name));
    if (names.size !== this.prefixTools.length) throw new AgentKitError('invalid_options', 'The preload set lists a tool twice.');
    this.prefixNames = names;
  }

  /** The stable prefix: meta-tools, then the preload set. */
  get prefix(): readonly ExposedTool[] {
    return this.prefixTools;
  }

  /** The discovered tools currently exposed, in prompt order. */
  get discovered(): readonly DiscoveredTool[] {
    return [...this.entries.values()];
  }

  /** Every exposed tool in prompt order: prefix, then discovered. */
  tools(): ExposedTool[] {
    return [...this.prefixTools, ...[...this.entries.values()].map((e) => e.tool)];
  }

  /** Tokens the discovered tools take now. */
  get usedTokens(): number {
    let sum = 0;
    for (const e of this.entries.values()) sum += e.tokens;
    return sum;
  }

  get tokenBudget(): number {
    return this.o.tokenBudget;
  }

  /** True when `name` is callable as a function right now (prefix or discovered). */
  isExposed(name: string): boolean {
    return this.prefixNames.has(name) || this.entries.has(name);
  }

  /** The tool behind an exposed name (released ones too), or undefined. */
  resolve(name: string): ToolRef | undefined {
    return this.names.resolve(name);
  }

  /**
   * Exposes a tool whose info was fetched, appending it; a tool already exposed keeps its place
   * (its definition is refreshed when the version changed). Releases others to stay within budget.
   */
  load(info: ToolInfo): LoadResult {
    const tool = exposedToolFromInfo(info, this.names);
    if (this.prefixNames.has(tool.name)) return { exposedName: tool.name, exposed: true, released: [] };
    const tokens = this.o.countTokens(canonicalJson(renderTools([tool], this.o.measureFormat).tools[0]));
    const existing = this.entries.get(tool.name);
    const entry: DiscoveredTool = { tool, ref: { provider: info.provider, name: info.name }, importance: importanceName(info.importance), tokens, version: info.version, runs: existing?.runs ?? 0 };
    if (tokens > this.o.tokenBudget) {
      // Too big to expose at all: keep it reachable through tool_run rather than evict everything.
      if (existing) this.release(tool.name);
      return { exposedName: tool.name, exposed: false, released: existing ? [tool.name] : [] };
    }
    this.entries.set(tool.name, entry); // Map.set on an existing key keeps its position.
    this.touch(tool.name);
    return { exposedName: tool.name, exposed: true, released: this.evictOverBudget(tool.name) };
  }

  /**
   * Records a run of a discovered tool (LRU) and applies the release-after-use rule for
   * low-importance tools. Returns the exposed names released. Unknown names are ignored.
   */
  recordRun(name: string): string[] {
    const entry = this.entries.get(name);
    if (!entry) return [];
    entry.runs++;
    this.touch(name);
    const usedLow = [...this.entries.entries()]
      .filter(([, e]) => e.importance === 'low' && e.runs > 0)
      .sort(([a], [b]) => (this.lastUse.get(b) ?? 0) - (this.lastUse.get(a) ?? 0));
    const released: string[] = [];
    for (const [n] of usedLow.slice(this.o.keepUsedLowImportance)) if (this.release(n)) released.push(n);
    return released;
  }

  /** Removes a discovered tool from the prompt (it stays callable by name). False when it was not exposed. */
  release(name: string): boolean {
    this.lastUse.delete(name);
    return this.entries.delete(name);
  }

  private touch(name: string): void {
    this.lastUse.set(name, ++this.clock);
  }

  private evictOverBudget(keep: string): string[] {
    const released: string[] = [];
    let used = this.usedTokens;
    while (used > this.o.tokenBudget) {
      let victim: DiscoveredTool | undefined;
      for (const e of this.entries.values()) {
        if (e.tool.name === keep) continue;
        if (!victim || RANK[e.importance] < RANK[victim.importance] || (RANK[e.importance] === RANK[victim.importance] && this.age(e) < this.age(victim))) victim = e;
      }
      if (!victim) break;
      this.release(victim.tool.name);
      used -= victim.tokens;
      released.push(victim.tool.name);
    }
    return released;
  }

  private age(e: DiscoveredTool): number {
    return this.lastUse.get(e.tool.name) ?? 0;
  }
}
