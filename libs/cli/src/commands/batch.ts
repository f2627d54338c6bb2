/**
 * `toolhub batch FILE`: runs a dependency-ordered batch (RunTools) described in a JSON or YAML file
 * (`-` reads stdin). The file is checked for shape here (exit 2, nothing sent); the server checks
 * the graph (ids, references, cycles, visibility) before any call runs (exit 4 when it refuses).
 * Each call's result is printed in the file's order; exit 1 when any call did not succeed.
 *
 * ```yaml
 * max_parallel: 4          # optional
 * calls:
 *   - id: sum
 *     tool: local:math_calculate
 *     args: { expression: "2 + 2" }
 *   - id: stats
 *     tool: local:text_stats
 *     args: { text: { $ref: "#/calls/sum/text" } }
 * ```
 */
import { type BatchCall, type BatchCallResult, BatchCallState, type RunToolsRequest } from '@toolhub/contracts';
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';

import type { CommandContext } from '../context';
import { CliUsageError } from '../errors';
import { EXIT_CODES, type ExitCode } from '../exit-codes';
import { formatMs, jsonDocument } from '../format';
import { parseToolRef } from '../parse';
import { detailLines } from '../report-error';
import { blockText, toolErrorJson } from './run';

/** Options of `batch`. */
export interface BatchOptions {
  maxParallel?: number;
}

const EXAMPLE = 'calls:\n  - id: sum\n    tool: local:math_calculate\n    args: { expression: "2 + 2" }\n  - id: stats\n    tool: local:text_stats\n    args: { text: { $ref: "#/calls/sum/text" } }';
const CALL_KEYS = new Set(['id', 'tool', 'provider', 'name', 'args', 'arguments', 'after', 'timeout_ms', 'idempotency_key', 'expected_version']);

const STATE_NAMES: Record<number, string> = {
  [BatchCallState.BATCH_CALL_STATE_OK]: 'ok',
  [BatchCallState.BATCH_CALL_STATE_TOOL_ERROR]: 'tool_error',
  [BatchCallState.BATCH_CALL_STATE_FAILED]: 'failed',
  [BatchCallState.BATCH_CALL_STATE_SKIPPED]: 'skipped',
};

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The RunTools request of a batch file's text: `{calls: [...], max_parallel?}` or just the list of
 * calls. A call names its tool as `tool: provider:name` or `provider` + `name`.
 * @throws CliUsageError naming the call and field that is wrong
 */
export function parseBatchFile(text: string, source: string): Pick<RunToolsRequest, 'calls' | 'maxParallel'> {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new CliUsageError(`${source} is neither JSON nor YAML: ${(err as Error).message.split('\n')[0]}.`, EXAMPLE);
  }
  const top = Array.isArray(doc) ? { calls: doc } : doc;
  if (!isObject(top) || !Array.isArray(top['calls'])) throw new CliUsageError(`${source} must hold a list \`calls\` (or be the list itself).`, EXAMPLE);
  const unknownTop = Object.keys(top).filter((k) => k !== 'calls' && k !== 'max_parallel');
  if (unknownTop.length) throw new CliUsageError(`${source}: unknown key${unknownTop.length > 1 ? 's' : ''} ${unknownTop.join(', ')} (a batch file has calls and max_parallel).`, EXAMPLE);
  const maxParallel = top['max_parallel'] ?? 0;
  if (!Number.isInteger(maxParallel) || (maxParallel as number) < 0) throw new CliUsageError(`${source}: max_parallel must be a whole number ≥ 0, got ${JSON.stringify(maxParallel)}.`);
  if (top['calls'].length === 0) throw new CliUsageError(`${source}: calls is empty; a batch needs at least one call.`, EXAMPLE);
  const calls = top['calls'].map((raw, i): BatchCall => {
    const at = `${source}: calls[${i}]`;
    if (!isObject(raw)) throw new CliUsageError(`${at} must be an object with id, tool and args; got ${JSON.stringify(raw)}.`, EXAMPLE);
    const unknown = Object.keys(raw).filter((k) => !CALL_KEYS.has(k));
    if (unknown.length) throw new CliUsageError(`${at}: unknown key${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (known: ${[...CALL_KEYS].join(', ')}).`);
    const str = (key: string): string => {
      const v = raw[key] ?? '';
      if (typeof v !== 'string') throw new CliUsageError(`${at}.${key} must be a string, got ${JSON.stringify(v)}.`);
      return v;
    };
    const id = str('id');
    if (!id) throw new CliUsageError(`${at} has no id; give each call a unique id (letters, digits, _ or -) that other calls can refer to.`, EXAMPLE);
    let ref;
    try {
      ref = raw['tool'] !== undefined ? parseToolRef(str('tool'), undefined, 'batch') : parseToolRef(str('provider'), str('name') || undefined, 'batch');
    } catch (err) {
      throw new CliUsageError(`${at} (${id}): ${(err as Error).message}`, 'tool: local:math_calculate');
    }
    const args = raw['args'] ?? raw['arguments'] ?? {};
    if (!isObject(args)) throw new CliUsageError(`${at} (${id}): args must be an object of the tool's arguments, got ${JSON.stringify(args)}.`);
    const after = raw['after'] ?? [];
    if (!Array.isArray(after) || !after.every((a) => typeof a === 'string')) throw new CliUsageError(`${at} (${id}): after must be a list of call ids, got ${JSON.stringify(after)}.`);
    const timeoutMs = raw['timeout_ms'] ?? 0;
    if (!Number.isInteger(timeoutMs) || (timeoutMs as number) < 0) throw new CliUsageError(`${at} (${id}): timeout_ms must be a whole number of ms, got ${JSON.stringify(timeoutMs)}.`);
    return { id, provider: ref.provider, name: ref.name, arguments: args, after, timeoutMs: timeoutMs as number, idempotencyKey: str('idempotency_key'), expectedVersion: str('expected_version') };
  });
  return { calls, maxParallel: maxParallel as number };
}

async function readBatchFile(file: string, readStdin: () => Promise<string>): Promise<string> {
  if (file === '-') return readStdin();
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new CliUsageError(`cannot read the batch file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`);
  }
}

function resultJson(call: BatchCall, r: BatchCallResult): unknown {
  const res = r.result;
  return {
    id: r.id,
    tool: `${call.provider}:${call.name}`,
    state: STATE_NAMES[r.state] ?? 'unknown',
    level: r.level,
    startedMs: r.startedMs,
    endedMs: r.endedMs,
    ...(res ? { content: res.content, ...(res.structured !== undefined ? { structured: res.structured } : {}), fixes: res.fixes, attempts: res.attempts, servedBy: res.servedBy, latencyMs: res.latencyMs } : {}),
    ...(r.error ? { error: toolErrorJson(r.error) } : {}),
  };
}

/** Runs the batch. Exit 0 when every call succeeded, 1 when any did not (all results are printed). */
export async function batchCommand(ctx: CommandContext, file: string, options: BatchOptions): Promise<ExitCode> {
  const parsed = parseBatchFile(await readBatchFile(file, ctx.io.readStdin), file === '-' ? 'standard input' : file);
  // The global --timeout is each call's timeout where the file sets none.
  const calls = parsed.calls.map((c) => ({ ...c, timeoutMs: c.timeoutMs || (ctx.settings.timeoutMs ?? 0) }));
  const hub = await ctx.session.agent();
  const res = await hub.runTools({ calls, maxParallel: options.maxParallel ?? parsed.maxParallel });
  const byId = new Map(calls.map((c) => [c.id, c]));
  const allOk = res.results.every((r) => r.state === BatchCallState.BATCH_CALL_STATE_OK);
  if (ctx.out.json) {
    ctx.out.document({ ok: allOk, levels: res.levels, latencyMs: res.latencyMs, results: res.results.map((r) => resultJson(byId.get(r.id)!, r)) });
    return allOk ? EXIT_CODES.ok : EXIT_CODES.toolError;
  }
  for (const r of res.results) {
    const call = byId.get(r.id)!;
    const state = STATE_NAMES[r.state] ?? 'unknown';
    const took = r.state === BatchCallState.BATCH_CALL_STATE_SKIPPED ? '' : `, ${formatMs(r.endedMs - r.startedMs)}`;
    ctx.out.line(`== ${r.id}  ${call.provider}:${call.name}  ${state} (level ${r.level}${took})`);
    if (r.result) {
      let body = r.result.content.map(blockText).filter((t) => t !== '').join('\n');
      if (body === '' && r.result.structured !== undefined) body = jsonDocument(r.result.structured).trimEnd();
      if (body !== '') ctx.io.stdout.write(body.endsWith('\n') ? body : `${body}\n`);
      for (const f of r.result.fixes) ctx.out.note(`note: ${r.id}: argument ${f.field} was repaired: ${f.description}`);
    }
    if (r.error && r.state !== BatchCallState.BATCH_CALL_STATE_OK) {
      ctx.out.line(`error ${state}: ${r.error.message}`);
      for (const l of detailLines(r.error, r.error.message)) ctx.out.line(l);
    }
  }
  const counts = Object.entries(
    res.results.reduce<Record<string, number>>((acc, r) => {
      const s = STATE_NAMES[r.state] ?? 'unknown';
      acc[s] = (acc[s] ?? 0) + 1;
      return acc;
    }, {}),
  )
    .map(([s, n]) => `${n} ${s}`)
    .join(', ');
  ctx.out.note(`${res.results.length} calls in ${res.levels} level${res.levels === 1 ? '' : 's'}, ${formatMs(res.latencyMs)}: ${counts}`);
  return allOk ? EXIT_CODES.ok : EXIT_CODES.toolError;
}
