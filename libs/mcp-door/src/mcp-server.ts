/** The MCP SDK server of one session: `tools/list` and `tools/call` over a {@link DoorSession}. */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { progressListener } from './progress';
import type { DoorSession } from './session';

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

/** Told about every finished `tools/call`: its outcome (`ok` or `is_error`). */
export type CallObserver = (outcome: 'ok' | 'is_error') => void;

const INSTRUCTIONS =
  'ToolHub reaches thousands of tools. Find them with tool_search (or browse with tool_list), read one with tool_info (it is then added to your tools), and call it directly or with tool_run.';

/** A new SDK server for `session`; `listChanged` is announced only where a session can be told (not stateless). */
export function createSessionServer(session: DoorSession, opts: { version: string; listChanged: boolean; jsonResponse: boolean; onCall?: CallObserver }): Server {
  const server = new Server({ name: 'toolhub', version: opts.version }, { capabilities: { tools: { listChanged: opts.listChanged }, logging: {} }, instructions: INSTRUCTIONS });
  server.oninitialized = () => {
    const client = server.getClientVersion()?.name;
    if (client) session.caller = `mcp:${client.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 48)}`;
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await session.listTools() }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const before = session.listSignature();
    const meta = req.params._meta as Record<string, unknown> | undefined;
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
  return server;
}
