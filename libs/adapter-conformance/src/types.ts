/** The shapes of a conformance run: its options, each rule's outcome and the report. */
import type { Bus } from '@toolhub/bus';

/** A tool and the arguments to run it with. */
export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** What to check and how. */
export interface ConformanceOptions {
  /** The provider the adapter serves (`toolhub.v1.adapter.<provider>.*`). */
  provider: string;
  /** Timeout of each request to the adapter. @default 5000 */
  timeoutMs?: number;
  /** How long to wait for a heartbeat after asking for one. @default 6000 */
  heartbeatWaitMs?: number;
  /** Fetch the info of at most this many tools (all of a large catalog takes long). @default 500 */
  maxInfo?: number;
  /** A tool safe to run twice, for the run-shape and idempotency rules; they are skipped without one. */
  runTool?: ToolCall;
  /** A tool that takes longer than 2 s, for the deadline-and-cancellation rule; skipped without one. */
  slowTool?: ToolCall;
  /** A tool whose result is larger than the bus carries, for the large-result rule; skipped without one. */
  largeTool?: ToolCall;
}

/** Filled-in options. */
export type ResolvedConformanceOptions = Required<Pick<ConformanceOptions, 'provider' | 'timeoutMs' | 'heartbeatWaitMs' | 'maxInfo'>> & ConformanceOptions;

/** pass: the rule holds; fail: it is broken (see `problems`); skip: not checked (see `detail`). */
export type RuleStatus = 'pass' | 'fail' | 'skip';

/** The outcome of one rule. */
export interface RuleResult {
  /** Stable id, e.g. `names` or `errors.not_found`. */
  id: string;
  /** The rule in one sentence. */
  rule: string;
  status: RuleStatus;
  /** What was broken, one line each (at most 10 listed, then a count). */
  problems: string[];
  /** For pass/skip: what was checked, or why not. */
  detail: string;
  durationMs: number;
}

/** The whole report. */
export interface ConformanceReport {
  provider: string;
  /** Contract version the adapter announced (empty when no heartbeat came). */
  contractVersion: string;
  sdkVersion: string;
  toolCount: number;
  passed: number;
  failed: number;
  skipped: number;
  results: RuleResult[];
}

/** What a rule gets: the bus, the options and what earlier rules learned. */
export interface RuleContext {
  bus: Bus;
  options: ResolvedConformanceOptions;
  /** Filled by the catalog rule. */
  facts: CatalogFacts;
}

/** What the adapter said about itself, shared between rules. */
export interface CatalogFacts {
  toolNames: string[];
  heartbeatToolCount?: number;
  contractVersion: string;
  sdkVersion: string;
  listBytes: number;
}

/** One rule: `check` returns problems (empty: pass) or a skip reason. */
export interface Rule {
  id: string;
  rule: string;
  check(ctx: RuleContext): Promise<{ problems: string[]; detail?: string } | { skip: string }>;
}
