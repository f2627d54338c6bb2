/** @toolhub/console — the operator console: a browser UI and a JSON layer over ToolHub's gRPC APIs. */
export { CONTENT_SECURITY_POLICY, type ConsoleLogger, type ConsoleServerOptions, type RunningConsole, startConsoleServer } from './console-server';
export { consoleApiTls, consoleConfigFields, type ConsoleSettings } from './config';
export { apiChannel, type ConsoleApiTls } from './api-tls';
export { ConsoleError } from './errors';
export { CONSOLE_SERVICES, type ConsoleServiceName, GrpcBridge, type GrpcBridgeOptions, type JsonAnswer, type StreamHandlers } from './grpc-bridge';
export { ensureUiBundle, type UiBundle, uiBundleCandidates } from './ui-bundle';
