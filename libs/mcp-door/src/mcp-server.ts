/** The MCP SDK server of one session: `tools/list` and `tools/call` over a {@link DoorSession}, and MCP tasks over async runs. */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type ServerResult,
} from '@modelcontextprotocol/sdk/types.js';
import { isMetaToolName, type McpTool } from '@toolhub/agent-kit';

import type { DoorRuns } from './backend';
import { progressListener } from './progress';
import type { DoorSession } from './session';
import { DoorTasks, type DoorTasksOptions } from './tasks';

/** W3C trace headers of an HTTP request, to continue the caller's trace below the door. */
function traceHeadersOf(headers: Record<string, string | string[] | undefined> | undefined): Record<string, string> | undefined {
  if (!headers) return undefined;
  const out: Record<string, string> = {};
  for (const k of ['traceparent', 'tracestate', 'baggage']) {
    const v = headers[k];
    if (typeof v === 'string') out[k] = v;
  }
  return Object.keys(out).length ? out : undefined;
}

/** Told about every finished `tools/call`: its outcome (`ok`, `is_error`, or `task` when it started one). */
export type CallObserver = (outcome: 'ok' | 'is_error' | 'task' | 'task_refused') => void;

const INSTRUCTIONS =
  'ToolHub reaches thousands of tools. Find them with tool_search (or browse with tool_list), read one with tool_info (it is then added to your tools), and call it directly or with tool_run.';

/** What a session server offers as MCP tasks: present only while the dispatcher's async runs are on. */
export interface SessionTasksOptions extends DoorTasksOptions {
  runs: DoorRuns;
  /** Status and progress notifications on the session's GET stream (not in stateless mode). */
  notify: boolean;
}

/** tool_run and typed tools may run as tasks (the spec's per-tool `execution.taskSupport`); the other meta-tools answer at once. */
export function withTaskSupport(tools: McpTool[]): Array<McpTool & { execution?: { taskSupport: 'optional' } }> {
  return tools.map((t) => (t.name === 'tool_run' || !isMetaToolName(t.name) ? { ...t, execution: { taskSupport: 'optional' as const } } : t));
}

/** A new SDK server for `session`; `listChanged` is announced only where a session can be told (not stateless). */
export function createSessionServer(
  session: DoorSession,
  opts: { version: string; listChanged: boolean; jsonResponse: boolean; onCall?: CallObserver; tasks?: SessionTasksOptions },
): Server {
  const taskCapability = opts.tasks ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {};
  const server = new Server({ name: 'toolhub', version: opts.version }, { capabilities: { tools: { listChanged: opts.listChanged }, logging: {}, ...taskCapability }, instructions: INSTRUCTIONS });
  const tasks = opts.tasks ? new DoorTasks(opts.tasks.runs, () => session.principal, opts.tasks, opts.tasks.notify ? (n) => server.notification(n) : undefined) : undefined;
  server.oninitialized = () => {
    const client = server.getClientVersion()?.name;
    if (client) session.caller = `mcp:${client.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 48)}`;
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = await session.listTools();
    return { tools: tasks ? withTaskSupport(tools) : tools };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const meta = req.params._meta as Record<string, unknown> | undefined;
    if (tasks && req.params.task) {
      const target = await session.runRequestOf(req.params.name, req.params.arguments, meta);
      if (!target) {
        opts.onCall?.('task_refused');
        if (isMetaToolName(req.params.name)) throw new McpError(ErrorCode.MethodNotFound, `${req.params.name} answers at once and cannot run as a task (its execution.taskSupport is forbidden); call it without "task". tool_run and typed tools can run as tasks.`);
        throw new McpError(
          ErrorCode.InvalidParams,
          (await session.isTyped(req.params.name)) || req.params.name === 'tool_run'
            ? 'A task needs tool_run with {"name": "<provider:tool>", "arguments": {...}} (arguments as an object, timeout_ms a whole number); call tool_info to see the tool\'s schema.'
            : `Unknown tool ${JSON.stringify(req.params.name)} for a task: find it with tool_search and read it with tool_info (it is then listed), or start it with tool_run.`,
        );
      }
      const created = await tasks.create(target, meta?.progressToken).catch((err: unknown) => {
        opts.onCall?.('task_refused');
        throw err;
      });
      opts.onCall?.('task');
      return created as unknown as ServerResult;
    }
    const before = session.listSignature();
    const result = await session.call(req.params.name, req.params.arguments, {
      signal: extra.signal,
      meta,
      traceHeaders: traceHeadersOf(extra.requestInfo?.headers as Record<string, string | string[] | undefined> | undefined),
      onProgress: meta?.progressToken === undefined ? undefined : progressListener(meta.progressToken, extra.sendNotification, req.params.name),
    });
    opts.onCall?.(result.isError ? 'is_error' : 'ok');
    if (opts.listChanged && session.listSignature() !== before) {
      // On the call's own SSE stream, before the result, so every host reads it; JSON answers have no
      // stream of their own, so then it goes to the session's GET stream. A host that ignores it keeps using tool_run.
      const notice = opts.jsonResponse ? server.sendToolListChanged() : extra.sendNotification({ method: 'notifications/tools/list_changed' });
      await notice.catch(() => undefined);
    }
    return result;
  });
  if (tasks) {
    // Registered only with the tasks capability (the SDK refuses the handlers without it).
    server.setRequestHandler(GetTaskRequestSchema, async (req) => (await tasks.get(req.params.taskId)) as unknown as ServerResult);
    server.setRequestHandler(GetTaskPayloadRequestSchema, async (req, extra) => (await tasks.result(req.params.taskId, extra.signal)) as ServerResult);
    server.setRequestHandler(ListTasksRequestSchema, async (req) => (await tasks.list(req.params?.cursor)) as unknown as ServerResult);
    server.setRequestHandler(CancelTaskRequestSchema, async (req) => (await tasks.cancel(req.params.taskId)) as unknown as ServerResult);
    server.onclose = () => tasks.close();
  }
  return server;
}
