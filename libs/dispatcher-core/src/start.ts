/** Starts a dispatcher and its gRPC server on a bus: what the dispatcher app and the one-process mode share. */
import type { Bus } from '@toolhub/bus';

import { Dispatcher, type DispatcherDeps } from './dispatcher';
import { type GrpcServerOptions, type RunningGrpcServer, startGrpcServer } from './grpc-server';
import type { DispatcherOptions } from './options';

export interface RunningDispatcher {
  readonly dispatcher: Dispatcher;
  readonly grpc: RunningGrpcServer;
  /** Stops the gRPC server (in-flight calls finish within `graceMs`), then discovery. */
  close(graceMs?: number): Promise<void>;
}

export async function startDispatcher(
  bus: Bus,
  options: { dispatcher?: DispatcherOptions; grpc?: GrpcServerOptions; deps?: DispatcherDeps } = {},
): Promise<RunningDispatcher> {
  const dispatcher = await Dispatcher.create(bus, options.dispatcher, options.deps);
  try {
    const grpc = await startGrpcServer(dispatcher, options.grpc);
    if (dispatcher.options.warmCoreTools) {
      // In the background: adapters answer discovery within moments; serving must not wait for it.
      const warm = setTimeout(() => {
        dispatcher.warmCoreTools().then(
          (n) => options.deps?.logger?.info({ tools: n }, 'cache warmed with core tools'),
          () => undefined,
        );
      }, 300);
      warm.unref();
    }
    return {
      dispatcher,
      grpc,
      async close(graceMs) {
        await grpc.close(graceMs);
        await dispatcher.close();
      },
    };
  } catch (err) {
    await dispatcher.close();
    throw err;
  }
}
