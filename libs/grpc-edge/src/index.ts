/** @toolhub/grpc-edge — defensive decoding, tracing and error mapping for ToolHub's gRPC services. */
export { type CallContext, guardedServiceDefinition, principalOf, toGrpcError, unary } from './grpc-edge';
export { addReflection, DescriptorIndex } from './reflection';
export { bindServer, closeServer } from './serve';
