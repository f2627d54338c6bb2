/** The proto-JSON shapes the pages read (defaults are omitted on the wire, hence the optional fields). */
export type Json = Record<string, unknown>;

export interface QuarantinedItem {
  source?: string;
  tool?: string;
  reason?: string;
  rule?: string;
}
export interface ProviderStatus {
  provider: string;
  healthy?: boolean;
  toolCount?: number;
  replicas?: number;
  refusedReplicas?: number;
  detail?: string;
  quarantined?: QuarantinedItem[];
  quarantinedCount?: number;
}
export interface ToolStats {
  toolId: string;
  calls?: number;
  successes?: number;
  failures?: Record<string, number>;
  successRate?: number;
  lastCallUnixMs?: number;
  latencyP50Ms?: number;
  latencyP95Ms?: number;
  latencyP99Ms?: number;
  hourly?: Array<{ hourUnixMs?: number; calls?: number; failures?: number }>;
}
export interface ToolExample {
  description?: string;
  arguments?: Json;
  result?: string;
}
export interface ToolInfo {
  id?: string;
  provider: string;
  name: string;
  path?: string;
  description?: string;
  inputSchema?: Json;
  outputDescription?: string;
  examples?: ToolExample[];
  importance?: string;
  version?: string;
  tags?: string[];
}
export interface RegisteredTool {
  tool?: ToolInfo;
  overlay?: { importance?: string; enabled?: boolean; fallbacks?: string[] };
  origin?: string;
  updatedUnixMs?: number;
}
export interface PreloadList {
  toolIds?: string[];
  revision?: number;
  changedBy?: string;
  changedUnixMs?: number;
  comment?: string;
}
export interface PreloadSet {
  tools?: Array<{ id: string; description?: string }>;
  fingerprint?: string;
  rendered?: string;
}
export interface PreloadSuggestion {
  toolId: string;
  score?: number;
  reasons?: string[];
  calls7d?: number;
  successRate?: number;
  alreadyPreloaded?: boolean;
}
export interface AuditEntry {
  id: string;
  atUnixMs?: number;
  principal?: string;
  roles?: string[];
  action?: string;
  target?: string;
  beforeJson?: string;
  afterJson?: string;
  comment?: string;
}
export interface SearchHit {
  id: string;
  provider?: string;
  name?: string;
  path?: string;
  summary?: string;
  score?: number;
  matchedOn?: string;
  unavailable?: boolean;
  /** With explain, hybrid or semantic: what the keyword and the meaning rankings gave the hit. */
  lexicalScore?: number;
  semanticScore?: number;
}
/** A tool's answer (RunToolResponse) as the agent sees it. */
export interface RunResult {
  status?: string;
  content?: Array<{ text?: string; json?: unknown }>;
  error?: ErrorInfo;
  fixes?: Array<{ field?: string; description?: string }>;
  attempts?: number;
  servedBy?: string;
  latencyMs?: number;
  structured?: unknown;
}
export interface ErrorInfo {
  code?: string;
  message?: string;
  violations?: Array<{ field: string; message: string; expected?: string }>;
  suggestions?: string[];
}
/** An async run (RunInfo). */
export interface RunInfo {
  runId: string;
  state?: string;
  provider?: string;
  name?: string;
  attempts?: number;
  queuedUnixMs?: number;
  startedUnixMs?: number;
  finishedUnixMs?: number;
  result?: RunResult;
  error?: ErrorInfo;
  progress?: { progress?: number; total?: number; message?: string };
  logLines?: string[];
  idempotencyKey?: string;
  caller?: string;
  expiresUnixMs?: number;
  cancelRequested?: boolean;
}
export interface WatchRunUpdate {
  run?: RunInfo;
  newLogLines?: string[];
  final?: boolean;
}
