/**
 * The RunStore port: durable records of async runs (StartRun). Dispatchers own it (the registry
 * never reads it). Updates are compare-and-set on a revision number, so two dispatchers racing on
 * one run (a redelivery, a cancel) cannot overwrite each other's write.
 */

/** Where a run is in its life. `unknown`: its worker died during a non-idempotent attempt. */
export type RunRecordState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'unknown';

/** States a run never leaves. */
export const TERMINAL_RUN_STATES: readonly RunRecordState[] = ['succeeded', 'failed', 'cancelled', 'unknown'];

/** Latest progress of a run as its tool reported it. */
export interface RunRecordProgress {
  progress: number;
  total: number;
  message: string;
}

/** One async run as stored. */
export interface RunRecord {
  /** Time-ordered: sorting ids sorts by creation. */
  id: string;
  /** Who started it (only this principal may read it), with the roles it had. */
  principalId: string;
  principalRoles: string[];
  principalMethod: string;
  caller: string;
  provider: string;
  name: string;
  /** The arguments as JSON, and a content hash of them (logs, comparing two starts). */
  argumentsJson: string;
  argumentsHash: string;
  timeoutMs: number;
  idempotencyKey: string;
  expectedVersion: string;
  searchId: string;
  /** Repeating an attempt is safe (idempotency key, or the tool is idempotent or read-only). */
  retrySafe: boolean;
  state: RunRecordState;
  /** Attempts started. */
  attempts: number;
  /** Compare-and-set revision: every write increments it. */
  rev: number;
  queuedUnixMs: number;
  /**
   * When the run was last put on the queue again because it stayed `queued` too long (its queue
   * message may have been lost: a crash between writing the record and queueing it). Absent or 0:
   * never (records from before 2026-11-29 have no such field).
   */
  requeuedUnixMs?: number;
  startedUnixMs: number;
  finishedUnixMs: number;
  /** When the record may be deleted (0 until the run ends). */
  expiresUnixMs: number;
  /** Instance id of the dispatcher running the current attempt ('' when none). */
  owner: string;
  cancelRequested: boolean;
  cancelReason: string;
  /** The RunToolResponse, protobuf-encoded in base64, once the tool answered ('' before). */
  result: string;
  /** The ErrorInfo, protobuf-encoded in base64, when the run failed, was cancelled or ended unknown. */
  error: string;
  progress: RunRecordProgress | null;
  /** The most recent log lines (a bounded tail). */
  logs: string[];
}

/** A page of one principal's runs. */
export interface ListRunsQuery {
  limit: number;
  /** Only runs whose id sorts before this one (the previous page's last). */
  beforeId?: string;
  state?: RunRecordState;
}

/** The port. Every method rejects with the backend's error on failure. */
export interface RunStore {
  /** Stores a new run; false when its id is taken. */
  create(run: RunRecord): Promise<boolean>;
  get(id: string): Promise<RunRecord | undefined>;
  /**
   * Replaces the run when its stored revision is still `run.rev`; the stored copy gets `rev + 1`.
   * Returns it, or undefined when another writer got there first (read it again).
   */
  replace(run: RunRecord): Promise<RunRecord | undefined>;
  /** One principal's runs, newest first. */
  list(principalId: string, query: ListRunsQuery): Promise<RunRecord[]>;
  /** The principal's newest run started with this idempotency key, if one is kept. */
  findByIdempotencyKey(principalId: string, key: string): Promise<RunRecord | undefined>;
  /** Runs in one of `states`, oldest first. */
  listInStates(states: readonly RunRecordState[], limit: number): Promise<RunRecord[]>;
  /**
   * How many runs are in one of `states` (only `principalId`'s when given), counting at most
   * `limit` (a count stops there, so its cost is bounded by the limit it is checked against).
   */
  countInStates(states: readonly RunRecordState[], query: { principalId?: string; limit: number }): Promise<number>;
  /** Deletes ended runs whose retention passed; returns how many. */
  deleteExpired(nowUnixMs: number): Promise<number>;
  /** Releases files or connections; idempotent. */
  close(): Promise<void>;
}
