/**
 * Shared pieces of the integration tests: where the real MCP servers live, a logger that records
 * every line, run contexts with deadlines, and the child processes of this test process (`ps`).
 */
import type { RunContext } from '@toolhub/adapter-sdk';
import { execFileSync } from 'node:child_process';
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

export interface ChildProcessRow {
  pid: number;
  stat: string;
  args: string;
}

/** Direct children of this process, from `ps --ppid` (without that `ps` itself). */
export function childProcesses(): ChildProcessRow[] {
  let out = '';
  try {
    out = execFileSync('ps', ['--ppid', String(process.pid), '-o', 'pid=,stat=,args='], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when nothing matches
  }
  return out
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [pid, stat, ...args] = l.split(/\s+/);
      return { pid: Number(pid), stat: stat ?? '', args: args.join(' ') };
    })
    .filter((c) => !c.args.startsWith('ps --ppid'));
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The text of a result's blocks, joined. */
export function textOf(result: { content: Array<{ text?: string }> }): string {
  return result.content.map((b) => b.text ?? '').join('\n');
}
