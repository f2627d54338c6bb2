/** Shared helpers of the local-tools tests. */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { RunContext, ToolDefinition, ToolResult } from '@toolhub/adapter-sdk';
import { ToolHubError } from '@toolhub/contracts';

/** A run context with a deadline `ms` from now. */
export function ctx(ms = 10_000, signal: AbortSignal = new AbortController().signal): RunContext {
  return { signal, deadline: Date.now() + ms, caller: 'test-agent', idempotencyKey: '' };
}

/** The tool called `name`. */
export function pick(tools: readonly ToolDefinition[], name: string): ToolDefinition {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} in ${tools.map((t) => t.name).join(', ')}`);
  return tool;
}

/** Runs a tool and returns its result. */
export function call(tool: ToolDefinition, args: Record<string, unknown>, context: RunContext = ctx()): Promise<ToolResult> {
  return tool.run(args, context);
}

/** Runs a tool that must fail and returns the ToolHubError. */
export async function callError(tool: ToolDefinition, args: Record<string, unknown>, context: RunContext = ctx()): Promise<ToolHubError> {
  try {
    await tool.run(args, context);
  } catch (err) {
    if (err instanceof ToolHubError) return err;
    throw new Error(`expected a ToolHubError, got ${String(err)}`);
  }
  throw new Error(`${tool.name} succeeded but was expected to fail`);
}

/** All text blocks of a result, joined by newlines. */
export function textOf(result: ToolResult): string {
  return result.content.map((c) => c.text ?? '').join('\n');
}

/** The structured output as a record. */
export function data(result: ToolResult): Record<string, unknown> {
  return result.structured as Record<string, unknown>;
}

/** A fresh temporary folder (its real path) and a function that removes it. */
export async function tempDir(prefix = 'toolhub-local-tools-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
