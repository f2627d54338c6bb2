import type { ToolCalled } from '@toolhub/contracts';

/** A `tool.called` event for tests: `local:echo_text`, ok, id `e-<n>` (or `<prefix><n>`), every field set. */
export function testEvent(n: number, overrides: Partial<ToolCalled> = {}): ToolCalled {
  return {
    eventId: `e-${n}`,
    toolId: 'local:echo_text',
    provider: 'local',
    name: 'echo_text',
    status: 'ok',
    errorCode: 0,
    latencyMs: 1,
    attempts: 1,
    fallbackUsed: '',
    caller: '',
    timestampUnixMs: Date.now(),
    searchId: '',
    claimGroup: '',
    ...overrides,
  };
}
