import type { CallContext } from '@toolhub/grpc-edge';
import { ToolHubError } from '@toolhub/contracts';

/** Time left of the call's deadline, at most `cap` ms. @throws ToolHubError timeout when none is left */
export function timeLeft(call: CallContext, cap: number): number {
  const remaining = call.deadline - Date.now();
  if (remaining <= 0) throw ToolHubError.timeout('The call deadline had already passed when it reached the dispatcher; send it with a longer deadline.');
  return Math.min(cap, remaining);
}
