/**
 * Test fixtures of @toolhub/run-store (entry `@toolhub/run-store/testing`): a whole run record with
 * plain defaults, for tests of the store and of what works on it.
 */
import type { RunRecord } from './run-store';

/** A queued run of `local:sleep` owned by `key:alice`, with `over` laid on top. */
export function runRecord(id: string, over: Partial<RunRecord> = {}): RunRecord {
  return {
    id,
    principalId: 'key:alice',
    principalRoles: ['agent'],
    principalMethod: 'api_key',
    caller: '',
    provider: 'local',
    name: 'sleep',
    argumentsJson: '{}',
    argumentsHash: 'h',
    timeoutMs: 0,
    idempotencyKey: '',
    expectedVersion: '',
    searchId: '',
    retrySafe: false,
    state: 'queued',
    attempts: 0,
    rev: 0,
    queuedUnixMs: 1,
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
    ...over,
  };
}
