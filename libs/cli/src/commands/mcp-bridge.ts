/**
 * `toolhub mcp`: an MCP server on stdin/stdout for hosts that launch a command (Claude Desktop,
 * Claude Code, Cursor …), bridged message by message to a running hub's MCP door over Streamable
 * HTTP with the caller's credentials (TOOLHUB_TOKEN). Nothing is interpreted on the way: sessions,
 * list_changed, progress and cancellation are the door's, so both transports behave the same.
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Readable, Writable } from 'node:stream';

/** Default MCP door of the one-process mode. */
export const DEFAULT_MCP_URL = 'http://127.0.0.1:50055/mcp';

export interface McpBridgeOptions {
  /** The door, e.g. http://127.0.0.1:50055/mcp. */
  url: string;
  /** API key or JWT, sent as `Authorization: Bearer`. */
  token?: string;
  stdin?: Readable;
  stdout?: Writable;
  /** Where bridge problems are reported (never stdout: that is the protocol stream). */
  log: (line: string) => void;
}

function hasId(m: JSONRPCMessage): m is JSONRPCMessage & { id: string | number } {
  return 'id' in m && m.id !== undefined && 'method' in m;
}

/**
 * Bridges until stdin closes (or the door goes away). Resolves with the exit code: 0 after a clean
 * end, 5 when the door could not be reached at all.
 * @throws TypeError for a URL that is not http(s)
 */
export async function runMcpBridge(o: McpBridgeOptions): Promise<number> {
  const url = new URL(o.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`--url must be an http(s) URL of the MCP door, e.g. ${DEFAULT_MCP_URL}; got ${o.url}.`);
  const up = new StreamableHTTPClientTransport(url, { requestInit: { headers: o.token ? { authorization: `Bearer ${o.token}` } : {} } });
  const down = new StdioServerTransport(o.stdin, o.stdout);
  let failed = false;
  const done = new Promise<void>((resolve) => {
    down.onclose = () => resolve();
    up.onclose = () => resolve();
  });
  up.onmessage = (m) => {
    // The door's answer to initialize fixes the protocol version the HTTP transport must announce.
    const result = (m as { result?: { protocolVersion?: unknown } }).result;
    if (typeof result?.protocolVersion === 'string') up.setProtocolVersion(result.protocolVersion);
    void down.send(m).catch(() => undefined);
  };
  up.onerror = (err) => o.log(`toolhub mcp: ${err.message}`);
  down.onmessage = (m) => {
    up.send(m).catch((err: Error) => {
      failed = true;
      o.log(`toolhub mcp: the hub at ${o.url} did not take the message (${err.message}); is it running (npm start) and is TOOLHUB_TOKEN right?`);
      // Answer requests so the host is not left waiting.
      if (hasId(m)) void down.send({ jsonrpc: '2.0', id: m.id, error: { code: -32000, message: `ToolHub at ${o.url} is unreachable or refused the call: ${err.message}` } }).catch(() => undefined);
    });
  };
  await up.start();
  await down.start();
  await done;
  await up.terminateSession().catch(() => undefined);
  await up.close().catch(() => undefined);
  await down.close().catch(() => undefined);
  return failed ? 5 : 0;
}
