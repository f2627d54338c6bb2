/** @toolhub/grpc-edge — defensive decoding, tracing and error mapping for ToolHub's gRPC services. */
export { type CallContext, type EdgeAuth, type FailureObserver, type GuardOptions, guardedServiceDefinition, messageTooLargeError, observeRpcs, principalOf, type RpcObserver, toGrpcError, unary } from './grpc-edge';
export { serverStream } from './server-stream';
export {
  abortCall,
  abortedByDeadline,
  abortReason,
  CallAbort,
  callAborted,
  callAbortedByDeadline,
  CallAbortedError,
  callAbortController,
  deadlineSlackMs,
  type EdgeAbortState,
  whenAborted,
  whenCallAborted,
} from './call-aborts';
export { tracerProviderRegistered } from './tracing';
export { addReflection, DescriptorIndex } from './reflection';
export { CertificateFiles, type CertificateFilesOptions } from './certificate-files';
export { assertSafeBind, bindServer, closeServer, isLoopbackHost, serverCredentials, type ServerTlsOptions } from './serve';
export { ApiHealth, connectionAgeOptions, grpcServerConfigFields } from './lifecycle';
export { answerRefused, shedBeforeGrpc, type StreamRefusal } from './stream-shed';
export {
  type ConnectionLimits,
  connectionLimitConfigFields,
  connectionGuardAvailable,
  connectionLimitOptions,
  connectionLimitsFromConfig,
  DEFAULT_CONNECTION_LIMITS,
  EdgeCounters,
  guardConnections,
  INSPECT_FROM_BYTES,
  type RequestInspection,
  type RequestInspector,
} from './connection-guard';
