/**
 * RunToolStream: RunTool with the tool's progress. The call runs exactly as RunTool does
 * (admission, grants, deadlines, retries, one tool.called event); it only adds a listener
 * (CallContext.onProgress) that sends each update down the stream before the result.
 */
import { type RunProgress, type RunToolStreamRequest, type RunToolStreamResponse, ToolHubError } from '@toolhub/contracts';
import type { CallContext } from '@toolhub/grpc-edge';

import type { Dispatcher } from './dispatcher';

export async function runToolStream(dispatcher: Pick<Dispatcher, 'runTool'>, req: RunToolStreamRequest, call: CallContext, send: (event: RunToolStreamResponse) => void): Promise<RunToolStreamResponse> {
  if (!req.run) {
    throw ToolHubError.invalidArgument('RunToolStream needs `run`: the RunToolRequest of the call (provider, name, arguments, …), exactly as RunTool takes it.', [
      { field: 'run', message: 'required' },
    ]);
  }
  const onProgress = (p: RunProgress): void => send({ progress: { progress: p.progress, total: p.total, message: p.message ?? '', log: p.log ?? '' } });
  return { result: await dispatcher.runTool(req.run, { ...call, onProgress }) };
}
