/** A new run record: what the caller asked for, and the lifecycle of a run that has not started yet. */
import type { RunRecord } from './run-store';

/** The fields a new run takes from its request; the rest is its lifecycle. */
export type RunRequestFields = Omit<RunRecord, 'state' | 'attempts' | 'rev' | 'queuedUnixMs' | 'startedUnixMs' | 'finishedUnixMs' | 'expiresUnixMs' | 'owner' | 'cancelRequested' | 'cancelReason' | 'result' | 'error' | 'progress' | 'logs'>;

/** `request` as a run queued at `queuedUnixMs`: no attempt, no owner, no result yet. */
export function queuedRunRecord(request: RunRequestFields, queuedUnixMs: number): RunRecord {
  return {
    ...request,
    state: 'queued',
    attempts: 0,
    rev: 0,
    queuedUnixMs,
    startedUnixMs: 0,
    finishedUnixMs: 0,
    expiresUnixMs: 0,
    owner: '',
    cancelRequested: false,
    cancelReason: '',
    result: '',
    error: '',
    progress: null,
    logs: [],
  };
}
