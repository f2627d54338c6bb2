/**
 * @toolhub/mcp-door — the MCP front door: Streamable HTTP at /mcp (and HTTP+SSE at /sse for older hosts) over the dispatcher's public
 * methods (identity, grants, admission, deadlines, cancellation, events and error texts stay
 * decided below the door). Any new export added here becomes public API.
 */
export { mcpAuthenticator, mcpResourceUrl } from './auth';
export { type DoorBackend, type DoorCall, type DoorRuns, apiFor, asCallError, callContextOf } from './backend';
export { type DoorCallResult, failureResult, runFailureResult, runResult } from './call-result';
export { type DoorTransport, McpDoor, type McpDoorDeps, type RequestObserver, SSE_MESSAGES_PATH, SSE_PATH } from './http-door';
export { createSessionServer, withTaskSupport } from './mcp-server';
export { registerMcpMetrics } from './metrics';
export { type RunningMcpDoor, startMcpDoor } from './start';
export { type McpDoorOptions, type McpSettings, type McpView, type ResolvedMcpDoorOptions, mcpConfigFields, mcpOptionsFrom, withMcpDefaults } from './options';
export { DoorSession, META_IDEMPOTENCY_KEY, META_TIMEOUT_MS, type SessionCall } from './session';
export { DoorTasks, type DoorTasksOptions, isTerminalTask, type TaskStatus, type TaskTarget, type TaskTiming, taskOf, taskResultOf, taskStatusOf, type WatchBudget } from './tasks';
