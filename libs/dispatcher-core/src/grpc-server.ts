/**
 * Starts the agent-facing gRPC server: the ToolHub service, the standard health service
 * (grpc.health.v1) and server reflection, so `grpcurl -plaintext host:port list` works.
 */
import { Server } from '@grpc/grpc-js';
import {
  argumentLimitError,
  type ArgumentSize,
  type ArgumentsPath,
  ArgumentWireCounter,
  contractDescriptorSet,
  measureRequestArguments,
  type SearchToolsRequest,
  ToolHubService,
} from '@toolhub/contracts';
import type { Authenticator } from '@toolhub/auth';
import {
  addReflection,
  ApiHealth,
  assertSafeBind,
  bindServer,
  closeServer,
  connectionAgeOptions,
  type ConnectionLimits,
  connectionLimitOptions,
  DEFAULT_CONNECTION_LIMITS,
  DescriptorIndex,
  type EdgeAuth,
  guardConnections,
  type RequestInspector,
  guardedServiceDefinition,
  serverStream,
  type ServerTlsOptions,
  shedBeforeGrpc,
  unary,
} from '@toolhub/grpc-edge';
import { HealthImplementation } from 'grpc-health-check';
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';

import { callViewedAs, describeAccess } from './access';
import { argumentLimits } from './arguments';
import { runBatch } from './batch-run';
import { runToolStream } from './run-tool-stream';
import type { Dispatcher } from './dispatcher';
import { asyncRunHandlers } from './runs/runs-grpc';

export interface GrpcServerOptions {
  /** @default '127.0.0.1' (use '0.0.0.0' in containers) */
  host?: string;
  /** 0 picks a free port. @default 50051 */
  port?: number;
  /**
   * Checks each call's credentials (API key, JWT, mTLS). @default none: local mode, every call is
   * the local principal — allowed only on a loopback host (see `allowUnauthenticated`).
   */
  authenticator?: Authenticator;
  /** TLS from certificate files, reloaded when they change. @default plaintext */
  tls?: ServerTlsOptions;
  /** Serve a non-loopback host without auth (only behind a proxy that authenticates). @default false */
  allowUnauthenticated?: boolean;
  /**
   * The app's readiness (its probes' verdict): the API port's health services follow it as well as
   * the NATS connection, so a load balancer checking this port stops routing to a replica that is
   * not ready. @default ready whenever NATS is connected
   */
  ready?: () => boolean;
  /** Connections end after this age (see connectionAgeOptions). @default 0: never */
  maxConnectionAgeMs?: number;
  /** Connection, stream and in-flight byte limits (see @toolhub/grpc-edge connection-guard). @default DEFAULT_CONNECTION_LIMITS */
  connectionLimits?: Partial<Omit<ConnectionLimits, 'maxMessageBytes'>>;
  /** Where a missing connection guard is reported. */
  log?: { warn(obj: object, msg: string): void };
}

export interface RunningGrpcServer {
  readonly server: Server;
  readonly port: number;
  /** `host:port` to dial. */
  readonly address: string;
  readonly health: HealthImplementation;
  /** Health NOT_SERVING from now on while calls are still served (the first step of a shutdown). */
  drain(): void;
  /** Stops accepting calls, lets in-flight calls finish for up to `graceMs`, then forces. */
  close(graceMs?: number): Promise<void>;
}

const SERVICE_NAME = 'toolhub.v1.ToolHub';
const SERVICE_PREFIX = `/${SERVICE_NAME}/`;
/** Paths of the runs the admission gate sheds (RunTool and its streaming variant). */
const SHED_PATHS = new Set([`/${SERVICE_NAME}/RunTool`, `/${SERVICE_NAME}/RunToolStream`]);
/**
 * Where the arguments sit in the requests (proto field numbers), by method: RunToolRequest.arguments
 * = 3; RunToolsRequest.calls = 1, BatchCall.arguments = 4; RunToolStreamRequest.run = 1 and
 * StartRunRequest.call = 1, each a RunToolRequest.
 */
const ARGUMENTS_PATHS: Readonly<Record<string, { path: ArgumentsPath; what: string }>> = {
  runTool: { path: { argumentsField: 3 }, what: 'The arguments' },
  runTools: { path: { repeatedField: 1, argumentsField: 4 }, what: "The batch's arguments (all calls together)" },
  runToolStream: { path: { repeatedField: 1, argumentsField: 3 }, what: 'The arguments' },
  startRun: { path: { repeatedField: 1, argumentsField: 3 }, what: 'The arguments' },
};
const PATH_METHODS = new Map(Object.keys(ARGUMENTS_PATHS).map((m) => [`/${SERVICE_NAME}/${m[0]!.toUpperCase()}${m.slice(1)}`, m]));

export async function startGrpcServer(dispatcher: Dispatcher, options: GrpcServerOptions = {}): Promise<RunningGrpcServer> {
  const host = options.host ?? '127.0.0.1';
  assertSafeBind('The dispatcher', host, options.authenticator?.enabled ?? false, options.allowUnauthenticated);
  // Any authenticated principal may use the agent API; grants decide which tools it sees.
  const auth: EdgeAuth | undefined = options.authenticator ? { authenticator: options.authenticator } : undefined;
  const maxMessageBytes = dispatcher.options.maxMessageBytes;
  const connectionLimits: ConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...options.connectionLimits, maxMessageBytes };
  const server = new Server({
    // Memory before authentication: the largest message is refused from its frame header (never
    // buffered), streams per connection and idle connections are bounded; the rest below.
    ...connectionLimitOptions(connectionLimits),
    'grpc.max_send_message_length': 64 * 1024 * 1024,
    // Channelz (gRPC's introspection service, which ToolHub does not serve) counts every call and
    // every message: a few percent of a busy dispatcher's CPU for data nobody can read.
    'grpc.enable_channelz': 0,
    ...connectionAgeOptions(options.maxConnectionAgeMs),
  });
  // Under a burst past the admission limits, RunTool is refused before it is decoded or
  // authenticated (counted in the shed metric; no tool.called event: the tool is not known yet).
  const refuseEarly = (method: string) => (method === 'runTool' || method === 'runToolStream' ? dispatcher.admission.refuseEarly() : undefined);
  // Argument limits counted on the wire, before decoding: decoding is itself linear in the count.
  // Depth is left to the pipeline (the decoder bounds recursion), which records the refused call.
  const limits = { ...argumentLimits(dispatcher.options), maxDepth: Number.MAX_SAFE_INTEGER };
  // Every property or item on the wire is a field of at least 2 bytes (tag, length), so a message
  // of at most 2 x maxNodes bytes (and within maxBytes) cannot pass a limit: ordinary calls skip the count.
  const countFrom = Math.min(2 * limits.maxNodes, limits.maxBytes);
  const precheck = (method: string, buf: Buffer): Error | undefined => {
    if (buf.length <= countFrom) return undefined;
    const where = ARGUMENTS_PATHS[method];
    if (where === undefined) return undefined;
    const size = measureRequestArguments(buf, limits, where.path);
    return size.exceeded ? argumentLimitError(size, limits, where.what) : undefined;
  };
  // The same count as a large request's bytes arrive (connection guard), so one past a limit is
  // refused after its first few hundred KiB instead of being received and concatenated whole.
  const inspect = (path: string, declaredBytes: number): RequestInspector | undefined => {
    const method = PATH_METHODS.get(path);
    const where = method === undefined ? undefined : ARGUMENTS_PATHS[method];
    if (where === undefined) return undefined;
    const counter = new ArgumentWireCounter(limits, where.path, declaredBytes);
    return { push: (buf, start, end) => (counter.done ? undefined : mapSize(counter.push(buf, start, end), where.what)) };
  };
  const mapSize = (size: ArgumentSize | undefined, what: string) => (size?.exceeded ? argumentLimitError(size, limits, what) : undefined);
  server.addService(guardedServiceDefinition(ToolHubService, maxMessageBytes, { refuseEarly, precheck }), {
    listTools: unary('toolhub.v1.ToolHub/ListTools', (req, call) => dispatcher.listTools(req as never, call), auth),
    getToolInfo: unary('toolhub.v1.ToolHub/GetToolInfo', (req, call) => dispatcher.getToolInfo(req as never, call), auth),
    runTool: unary('toolhub.v1.ToolHub/RunTool', (req, call) => dispatcher.runTool(req as never, call), auth),
    listProviders: unary('toolhub.v1.ToolHub/ListProviders', (_req, call) => dispatcher.listProvidersFor(call), auth),
    getStatus: unary('toolhub.v1.ToolHub/GetStatus', (_req, call) => dispatcher.statusFor(call), auth),
    searchTools: unary(
      'toolhub.v1.ToolHub/SearchTools',
      (req, call) => {
        const r = req as SearchToolsRequest;
        // An operator checking what another principal finds (its grants applied); see access.ts.
        return dispatcher.searchTools(r, r.viewAs ? callViewedAs(r.viewAs, call, options.authenticator) : call);
      },
      auth,
    ),
    getPreloadSet: unary('toolhub.v1.ToolHub/GetPreloadSet', (req, call) => dispatcher.getPreloadSet(req as never, call), auth),
    // Each call of a batch goes through dispatcher.runTool: admitted, checked and recorded one by one.
    runTools: unary('toolhub.v1.ToolHub/RunTools', (req, call) => runBatch(dispatcher, req as never, call, dispatcher.options.maxConcurrentPerCaller), auth),
    // RunTool plus the tool's progress, streamed before the result (see run-tool-stream.ts).
    runToolStream: serverStream('toolhub.v1.ToolHub/RunToolStream', (req, call, send) => runToolStream(dispatcher, req as never, call, send), auth),
    // Operators and admins only: it names every principal and rule (never a secret).
    getAccess: unary('toolhub.v1.ToolHub/GetAccess', async () => describeAccess(options.authenticator, dispatcher.grants), options.authenticator ? { authenticator: options.authenticator, roles: ['operator'] } : undefined),
    // Async runs: each run readable by the principal that started it only (see runs/async-runs.ts).
    ...asyncRunHandlers(() => dispatcher.asyncRuns, auth),
  });

  const health = new HealthImplementation({ '': 'SERVING', [SERVICE_NAME]: 'SERVING' });
  health.addToServer(server);

  const index = new DescriptorIndex(contractDescriptorSet());
  index.addServiceNames(SERVICE_NAME, 'grpc.health.v1.Health');
  addReflection(server, index);

  const port = await bindServer(server, host, options.port ?? 50051, options.tls);
  // Connections per peer and in total, bytes still arriving, stalled requests: grpc-js has no
  // option for these; they are enforced on its HTTP/2 servers.
  if (!guardConnections(server, connectionLimits, dispatcher.edgeCounters, inspect)) {
    options.log?.warn({}, 'gRPC connection guard not installed (grpc-js internals changed): only grpc-js limits apply; put a proxy with connection limits in front (README "Limits")');
  }
  // The admission refusal, earlier still: on the raw HTTP/2 stream, before grpc-js reads anything
  // (installed after the guard, so a refused stream costs neither grpc-js nor the guard).
  // A ToolHub call without any credentials (auth on) is answered UNAUTHENTICATED from its headers,
  // the same answer the edge would give after receiving, buffering and decoding the whole request:
  // memory before authentication is then only what callers presenting a credential send.
  const authenticator = options.authenticator?.enabled ? options.authenticator : undefined;
  const withoutCredentials = (path: string, headers: IncomingHttpHeaders, stream: ServerHttp2Stream): Error | undefined => {
    if (authenticator === undefined || !path.startsWith(SERVICE_PREFIX)) return undefined;
    if (headers['authorization'] !== undefined || headers['x-api-key'] !== undefined) return undefined;
    // Over TLS a client certificate may be the credential: the edge reads it as usual.
    if (stream.session?.encrypted) return undefined;
    try {
      if (authenticator.authenticate({}) !== undefined) return undefined;
    } catch (err) {
      dispatcher.edgeCounters.refused.unauthenticated++;
      return err as Error;
    }
    return undefined;
  };
  shedBeforeGrpc(server, (path, headers, stream) => (SHED_PATHS.has(path) ? dispatcher.admission.refuseEarly() : undefined) ?? withoutCredentials(path, headers, stream));

  // '' and the ToolHub service follow readiness: NATS connected and the app's own probes (a load
  // balancer may check this port); liveness is on the ops port (TOOLHUB_HEALTH_PORT), so a
  // dispatcher only waiting for NATS is not restarted.
  const apiHealth = new ApiHealth(health, [SERVICE_NAME], () => dispatcher.busStatus().busConnected && (options.ready?.() ?? true));

  let closed: Promise<void> | undefined;
  return {
    server,
    port,
    address: `${host}:${port}`,
    health,
    drain: () => apiHealth.drain(),
    close(graceMs = 5000) {
      apiHealth.drain();
      closed ??= closeServer(server, health, [SERVICE_NAME], graceMs);
      return closed;
    },
  };
}
