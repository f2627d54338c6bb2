/**
 * What an adapter team implements: the three standard operations of the design, plus the shapes
 * they exchange. The SDK turns an {@link AdapterDefinition} into a NATS (or in-process) service.
 */
import type { Category, ContentBlock, ToolInfo, ToolSummary } from '@toolhub/contracts';

import type { ProgressUpdate } from './progress-reporter';
import type { Redactor } from './redaction';
import type { QuarantineEntry } from './quarantine';

/** A JSON Schema object (draft 2020-12 subset) describing a tool's arguments. */
export type JsonSchema = { [key: string]: unknown };

/** Context of one run: honour `signal` — it aborts when the caller's deadline passes. */
export interface RunContext {
  /** Aborted at the deadline or when the adapter shuts down. */
  readonly signal: AbortSignal;
  /** Absolute deadline, epoch milliseconds. */
  readonly deadline: number;
  /** Agent id of the caller, '' when unknown. */
  readonly caller: string;
  /** Set when the caller made the call retry-safe. */
  readonly idempotencyKey: string;
  /**
   * Reports how far the run is (`{progress, total, message}`). Set by serveAdapter only when the
   * caller listens (an MCP client's progressToken, RunToolStream), so call it as
   * `ctx.progress?.(…)`; an adapter wrapping another protocol asks its upstream for progress only
   * when it is set. Coalesced to about ten messages a second per call, the latest always delivered.
   */
  readonly progress?: (update: ProgressUpdate) => void;
  /** Reports a log line of the run; set, coalesced and delivered like {@link progress} (lines accumulate, newest kept). */
  readonly log?: (line: string) => void;
}

/** What a tool returns. `isError` means the tool ran and reports failure (shown to the LLM). */
export interface ToolResult {
  content: ContentBlock[];
  structured?: unknown;
  isError?: boolean;
  /** With `isError`: a message the LLM can act on. */
  errorMessage?: string;
}

/** The listing at one path of a provider's tree. */
export interface ListResult {
  categories: Category[];
  tools: ToolSummary[];
}

/** The three operations every adapter implements. Throw ToolHubError for expected failures. */
export interface AdapterOperations {
  /** Like `ls` at `path` ('' is the root); `recursive` includes tools of every sub-category. */
  listTools(path: string, recursive: boolean): Promise<ListResult>;
  /** Full info of one tool. @throws ToolHubError not_found (with close matches) */
  getToolInfo(name: string): Promise<ToolInfo>;
  /** Runs one tool before `ctx.deadline`. @throws ToolHubError */
  runTool(name: string, args: Record<string, unknown>, ctx: RunContext): Promise<ToolResult>;
}

/** Everything the SDK needs to serve one provider. */
export interface AdapterDefinition extends AdapterOperations {
  /** Provider name (matches PROVIDER_NAME_PATTERN), e.g. `local`, `mcp`. */
  provider: string;
  /** Every tool, for catalog announcements to the registry. */
  catalog(): Promise<ToolInfo[]>;
  /** Optional health probe; healthy when omitted. */
  health?(): Promise<{ healthy: boolean; detail: string }>;
  /**
   * Optional: sources (or tools) this adapter left out, with reasons — an OpenAPI document that does
   * not parse, an MCP server that never answers. Announced with the catalog next to the tools the
   * SDK itself quarantined (see {@link QuarantineList}); call `service.announce()` after a change.
   */
  quarantined?(): QuarantineEntry[] | Promise<QuarantineEntry[]>;
  /**
   * Optional: the redactor of this adapter's configured secrets (e.g. `SecretRedactor` of
   * @toolhub/config). serveAdapter passes every result, error, health detail, quarantine reason
   * and its own log lines through it, as a backstop to the adapter's own redaction.
   */
  readonly redactor?: Redactor;
}

/**
 * A tool defined in code: its description plus its implementation. {@link staticCatalog} turns a
 * list of these into the list/info/run operations.
 */
export interface ToolDefinition<Args = Record<string, unknown>> {
  /** Matches ^[a-z][a-z0-9_]{0,63}$. */
  name: string;
  /** Category path, e.g. `file` or `text`. */
  path: string;
  /** When to use it, what it returns, when not to use it. */
  description: string;
  inputSchema: JsonSchema;
  outputDescription?: string;
  /**
   * JSON Schema (`type: "object"`) of the structured result, for tools that return `structured`
   * results matching it; MCP clients of the MCP door see it as the tool's `outputSchema`.
   */
  outputSchema?: JsonSchema;
  examples?: Array<{ description: string; arguments: Record<string, unknown>; result?: string }>;
  importance?: 'core' | 'normal' | 'low';
  annotations?: { readOnly?: boolean; destructive?: boolean; idempotent?: boolean; openWorld?: boolean };
  tags?: string[];
  /** Default timeout for one run. */
  defaultTimeoutMs?: number;
  /** The tool's name at its source when `name` was mapped from it (see `toolNameMap`); kept in ToolInfo. */
  sourceName?: string;
  /**
   * Runs the tool. `args` were checked against `inputSchema` by the caller, but a definition built
   * with a schema library should still parse them. Throw ToolHubError for expected failures.
   */
  run(args: Args, ctx: RunContext): Promise<ToolResult>;
}
