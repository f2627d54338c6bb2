/**
 * Shared pieces of the integration tests: where the real MCP servers live, a logger that records
 * every line, run contexts with deadlines, and the child processes of this test process (`ps`).
 */
import type { RunContext } from '@toolhub/adapter-sdk';
import { childrenOf, isAlive, type ProcessRow } from '@toolhub/test-harness';
import { dirname, join } from 'node:path';

import type { McpLogger } from '../src';

export const EVERYTHING_ENTRY = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');
export const FILESYSTEM_ENTRY = join(dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');
export const FIXTURE_SERVER = join(__dirname, 'fixtures', 'dynamic-server.mjs');

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  fields: object;
}

/** A logger that keeps every line, so tests can look for warnings and for leaked secrets. */
export function recordingLogger(): McpLogger & { lines: LogLine[]; text(): string } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (fields: object, msg = '') => void lines.push({ level, msg, fields });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), text: () => lines.map((l) => `${l.level} ${l.msg} ${JSON.stringify(l.fields)}`).join('\n') };
}

/** A run context whose signal aborts at the deadline, as serveAdapter's does. */
export function runContext(timeoutMs: number): RunContext {
  return { signal: AbortSignal.timeout(timeoutMs), deadline: Date.now() + timeoutMs, caller: 'test', idempotencyKey: '' };
}

/** Direct children of this test process (`ps --ppid`). */
export function childProcesses(): ProcessRow[] {
  return childrenOf(process.pid);
}

export { isAlive };

/** The text of a result's blocks, joined. */
export function textOf(result: { content: Array<{ text?: string }> }): string {
  return result.content.map((b) => b.text ?? '').join('\n');
}
