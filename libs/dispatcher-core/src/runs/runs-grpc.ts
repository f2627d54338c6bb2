/** The async-run methods of the ToolHub gRPC service (StartRun, GetRun, WatchRun, CancelRun, ListRuns). */
import { ToolHubError, type WatchRunResponse } from '@toolhub/contracts';
import { type CallContext, type EdgeAuth, serverStream, unary } from '@toolhub/grpc-edge';

import type { AsyncRuns } from './async-runs';

function runsOf(runs: AsyncRuns | undefined): AsyncRuns {
  if (!runs) {
    throw new ToolHubError(
      'failed_precondition',
      'Async runs are not available on this dispatcher: it has no run store (set MONGO_URL on every dispatcher replica, or use the one-process mode), or its runs database has not answered yet. Use RunTool to run the tool now, or retry StartRun later.',
    );
  }
  return runs;
}

/** Handlers for the service definition; every one answers FAILED_PRECONDITION while async runs are off. */
export function asyncRunHandlers(runs: () => AsyncRuns | undefined, auth: EdgeAuth | undefined) {
  return {
    startRun: unary('toolhub.v1.ToolHub/StartRun', (req, call) => runsOf(runs()).startRun(req as never, call), auth),
    getRun: unary('toolhub.v1.ToolHub/GetRun', (req, call) => runsOf(runs()).getRun(req as never, call), auth),
    watchRun: serverStream('toolhub.v1.ToolHub/WatchRun', (req, call: CallContext, send: (u: WatchRunResponse) => void) => runsOf(runs()).watchRun(req as never, call, send), auth),
    cancelRun: unary('toolhub.v1.ToolHub/CancelRun', (req, call) => runsOf(runs()).cancelRun(req as never, call), auth),
    listRuns: unary('toolhub.v1.ToolHub/ListRuns', (req, call) => runsOf(runs()).listRuns(req as never, call), auth),
  };
}
