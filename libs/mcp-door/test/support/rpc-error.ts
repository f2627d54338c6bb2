/** The JSON-RPC error an MCP SDK client call ended with (a test fails when it succeeded or failed otherwise). */
import { McpError } from '@modelcontextprotocol/sdk/types.js';

export async function rpcError(p: Promise<unknown>): Promise<McpError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof McpError) return err;
    throw err;
  }
  throw new Error('expected a JSON-RPC error');
}
