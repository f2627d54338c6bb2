/**
 * Test fixtures of @toolhub/run-store (entry `@toolhub/run-store/testing`): a whole run record with
 * plain defaults, for tests of the store and of what works on it.
 */
import { queuedRunRecord } from './queued-run';
import type { RunRecord } from './run-store';

/** A queued run of `local:sleep` owned by `key:alice`, with `over` laid on top. */
export function runRecord(id: string, over: Partial<RunRecord> = {}): RunRecord {
  const request = {
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
  };
  return { ...queuedRunRecord(request, 1), ...over };
}
