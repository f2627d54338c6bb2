/**
 * A fake ToolHub server for tests: a real grpc-js Server on an ephemeral port serving a full
 * ToolHubServer implementation whose handlers a test can swap. Failures are sent like the
 * dispatcher sends them: gRPC status + `toolhub-error-bin` trailer holding an ErrorInfo.
 */
import { type handleUnaryCall, Metadata, Server, ServerCredentials, status } from '@grpc/grpc-js';
import {
  ErrorInfo,
  GRPC_ERROR_TRAILER,
  type ListToolsResponse,
  type RunToolResponse,
  RunStatus,
  type SearchToolsResponse,
  ToolHubError,
  type ToolHubServer,
  ToolHubService,
} from '@toolhub/contracts';

type Method = 'listTools' | 'getToolInfo' | 'runTool' | 'searchTools' | 'getPreloadSet' | 'listProviders';
type Handlers = { [K in Method]: ToolHubServer[K] extends handleUnaryCall<infer Req, infer Res> ? (req: Req, md: Metadata) => Promise<Res> | Res : never };

export interface FakeServer {
  address: string;
  /** Replace handlers; unset ones answer UNIMPLEMENTED. */
  handlers: Partial<Handlers>;
  /** Requests and metadata seen, per method. */
  calls: Array<{ method: string; request: unknown; metadata: Metadata }>;
  close(): Promise<void>;
}

/** The gRPC error the dispatcher would send for `err`. */
export function grpcError(err: ToolHubError): Error {
  const metadata = new Metadata();
  metadata.set(GRPC_ERROR_TRAILER, Buffer.from(ErrorInfo.encode(err.toErrorInfo()).finish()));
  return Object.assign(new Error(err.message), { code: err.grpcStatus, details: err.message, metadata });
}

/** A bare gRPC status error without the ErrorInfo trailer (as a proxy or transport would send). */
export function statusError(code: status, details: string): Error {
  return Object.assign(new Error(details), { code, details, metadata: new Metadata() });
}

export async function startFakeServer(handlers: Partial<Handlers> = {}): Promise<FakeServer> {
  const server = new Server();
  const fake: FakeServer = { address: '', handlers, calls: [], close: async () => undefined };
  const impl: Record<string, handleUnaryCall<unknown, unknown>> = {};
  for (const method of Object.keys(ToolHubService)) {
    impl[method] = (call, callback) => {
      fake.calls.push({ method, request: call.request, metadata: call.metadata });
      const handler = (fake.handlers as Record<string, ((req: unknown, md: Metadata) => unknown) | undefined>)[method];
      if (!handler) {
        callback(statusError(status.UNIMPLEMENTED, `${method} is not implemented`));
        return;
      }
      Promise.resolve()
        .then(() => handler(call.request, call.metadata))
        .then(
          (res) => callback(null, res),
          (err: Error) => callback(err instanceof ToolHubError ? grpcError(err) : err),
        );
    };
  }
  server.addService(ToolHubService, impl as unknown as ToolHubServer);
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
  fake.address = `127.0.0.1:${port}`;
  fake.close = () => new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  return fake;
}

export const emptyListing: ListToolsResponse = { categories: [], tools: [], hint: '', nextPageToken: '', total: 0 };
export const emptySearch: SearchToolsResponse = { hits: [], suggestions: [], searchId: '', mode: 0, note: '' };
export function okRun(text: string): RunToolResponse {
  return { status: RunStatus.RUN_STATUS_OK, content: [{ text }], fixes: [], attempts: 1, servedBy: '', latencyMs: 1 };
}
