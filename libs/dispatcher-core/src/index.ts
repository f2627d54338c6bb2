/**
 * @toolhub/dispatcher-core — the dispatcher's logic and its gRPC edge, shared by the dispatcher
 * app and the one-process mode.
 */
export { type CallContext, Dispatcher } from './dispatcher';
export { type DispatcherOptions, type ResolvedDispatcherOptions, withDefaults } from './options';
export { ProviderDirectory } from './providers';
export { type GrpcServerOptions, type RunningGrpcServer, startGrpcServer } from './grpc-server';
export { toGrpcError, guardedServiceDefinition } from './grpc-edge';
export { checkArgumentDepth } from './arguments';
export { type RunningDispatcher, startDispatcher } from './start';
