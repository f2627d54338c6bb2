/** The names of async-run states as people and models read them (CLI, agent-kit), one list. */
import { RunState } from './gen/toolhub/v1/agent';

export const RUN_STATE_NAMES: Readonly<Record<number, string>> = Object.freeze({
  [RunState.RUN_STATE_QUEUED]: 'queued',
  [RunState.RUN_STATE_RUNNING]: 'running',
  [RunState.RUN_STATE_SUCCEEDED]: 'succeeded',
  [RunState.RUN_STATE_FAILED]: 'failed',
  [RunState.RUN_STATE_CANCELLED]: 'cancelled',
  [RunState.RUN_STATE_UNKNOWN]: 'unknown',
});

/** `queued`, `running`, …; `unspecified` for a state this build does not know. */
export function runStateName(state: RunState): string {
  return RUN_STATE_NAMES[state] ?? 'unspecified';
}
