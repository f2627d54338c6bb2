/**
 * Load generator for the MCP side: an `@modelcontextprotocol/sdk` client, one session shared by
 * every concurrent call (JSON-RPC requests interleave on it, as they would from one agent process).
 * Forked by gateway.bench.ts; see protocol.ts.
 *
 *   GEN_TRANSPORT=stdio GEN_SERVER_JS=<server-everything dist/index.js>   the floor: the server is this process's child
 *   GEN_TRANSPORT=http  GEN_URL=http://127.0.0.1:<port>/mcp               Streamable HTTP (mcp-proxy)
 *   GEN_TRANSPORT=sse   GEN_URL=http://127.0.0.1:<port>/mcp               HTTP+SSE (mcp-hub's unified endpoint)
 *   GEN_TOOL=<name>                                                        the echo tool's name at that endpoint
 *   GEN_LOAD=<provider:name>                                               first tool_info it (ToolHub's MCP door: looked-up tools join tools/list)
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

import { MESSAGE, retry, serveGenerator } from './protocol';

const TRANSPORT = process.env['GEN_TRANSPORT'] ?? 'stdio';
const URL_ = process.env['GEN_URL'] ?? '';
const SERVER_JS = process.env['GEN_SERVER_JS'] ?? '';
const TOOL = process.env['GEN_TOOL'] ?? 'echo';
const LOAD = process.env['GEN_LOAD'] ?? '';
const TIMEOUT_MS = 30_000;

function transport(): Transport {
  switch (TRANSPORT) {
    case 'stdio':
      if (!SERVER_JS) throw new Error('GEN_SERVER_JS is not set');
      return new StdioClientTransport({ command: process.execPath, args: [SERVER_JS, 'stdio'], stderr: 'ignore' });
    case 'http':
      return new StreamableHTTPClientTransport(new URL(URL_));
    case 'sse':
      return new SSEClientTransport(new URL(URL_));
    default:
      throw new Error(`GEN_TRANSPORT must be stdio, http or sse, not ${TRANSPORT}`);
  }
}

serveGenerator(async () => {
  // The gateway may still be starting or connecting its server: retry the whole handshake.
  const { client, t } = await retry(`MCP ${TRANSPORT} session listing ${TOOL}`, 90_000, async () => {
    const t = transport();
    const client = new Client({ name: 'toolhub-gateway-bench', version: '1.0.0' });
    try {
      await client.connect(t);
      if (LOAD) {
        const info = await client.callTool({ name: 'tool_info', arguments: { name: LOAD } });
        if (info.isError) throw new Error(`tool_info ${LOAD}: ${JSON.stringify(info.content).slice(0, 200)}`);
      }
      const { tools } = await client.listTools();
      if (!tools.some((x) => x.name === TOOL)) throw new Error(`no tool ${TOOL} among ${tools.map((x) => x.name).join(', ') || 'none'}`);
      return { client, t };
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
  });
  const call = async (): Promise<void> => {
    const res = await client.callTool({ name: TOOL, arguments: { message: MESSAGE } }, undefined, { timeout: TIMEOUT_MS });
    const first = (res.content as { type: string; text?: string }[] | undefined)?.[0];
    if (res.isError || !first?.text?.includes(MESSAGE)) throw new Error(`${TOOL}: the reply does not echo the message: ${JSON.stringify(res).slice(0, 200)}`);
  };
  await call();
  const pid = t instanceof StdioClientTransport ? (t.pid ?? undefined) : undefined;
  return {
    call,
    close: async () => {
      if (t instanceof StreamableHTTPClientTransport) await t.terminateSession().catch(() => undefined);
      await client.close();
    },
    tool: TOOL,
    detail: TRANSPORT === 'stdio' ? `tools/call over stdio to node ${SERVER_JS} stdio` : `tools/call over ${TRANSPORT === 'http' ? 'Streamable HTTP' : 'HTTP+SSE'} to ${URL_}`,
    ...(pid ? { serverPid: pid } : {}),
  };
});
