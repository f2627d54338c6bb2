/**
 * `toolhub run <provider> <name> [--args JSON | --arg k=v ...]`: runs one tool. The tool's output
 * goes to stdout (text as is, JSON pretty-printed), repairs and fallbacks to stderr as notes;
 * with --progress, the tool's progress updates and log lines too, as they come.
 */
import { type ContentBlock, errorCodeFromProto, type ErrorInfo, ErrorCode, type RunProgress, RunStatus } from '@toolhub/contracts';

import type { CommandContext } from '../context';
import { EXIT_CODES, type ExitCode } from '../exit-codes';
import { jsonDocument } from '../format';
import { parseToolArguments, parseToolRef } from '../parse';
import { detailLines } from '../report-error';

/** Options of `run`. */
export interface RunOptions {
  args?: string;
  arg?: string[];
  idempotencyKey?: string;
  /** Print the tool's progress updates and log lines to stderr while it runs (RunToolStream). */
  progress?: boolean;
}

/** One progress update as stderr lines: `progress: 2/3 (67%) uploading part 2`, then its log lines. */
export function progressLines(p: RunProgress): string[] {
  const lines: string[] = [];
  if (p.progress !== undefined || p.message) {
    const amount = p.progress === undefined ? '' : p.total ? `${p.progress}/${p.total} (${Math.round((p.progress / p.total) * 100)}%)` : String(p.progress);
    lines.push(`progress: ${[amount, p.message ?? ''].filter(Boolean).join(' ')}`);
  }
  if (p.log) for (const l of p.log.split('\n')) lines.push(`log: ${l}`);
  return lines;
}

/** A content block as text for people (binary content summarised). */
export function blockText(b: ContentBlock): string {
  if (b.text !== undefined) return b.text;
  if (b.json !== undefined) return jsonDocument(b.json).trimEnd();
  if (b.image) return `[image ${b.image.mimeType}, ${b.image.data.length} bytes; --json has the data]`;
  if (b.audio) return `[audio ${b.audio.mimeType}, ${b.audio.data.length} bytes; --json has the data]`;
  if (b.resource) {
    const r = b.resource;
    return r.text ? r.text : `[resource ${r.uri}${r.mimeType ? ` ${r.mimeType}` : ''}${r.blob.length ? `, ${r.blob.length} bytes` : ''}]`;
  }
  return '';
}

/** A tool error for `--json`, its code by name. */
export function toolErrorJson(e: ErrorInfo | undefined): unknown {
  if (!e) return undefined;
  return { ...e, code: e.code === ErrorCode.ERROR_CODE_UNSPECIFIED ? 'failed' : errorCodeFromProto(e.code) };
}

/**
 * Runs the tool. Exit 0 when it succeeded, 1 when it ran and reported a failure (its output is
 * still printed), else the exit code of the ToolHub error (invalid arguments 4, unknown tool 3...).
 */
export async function runCommand(ctx: CommandContext, first: string, second: string | undefined, options: RunOptions): Promise<ExitCode> {
  const ref = parseToolRef(first, second, 'run');
  const args = await parseToolArguments(options.args, options.arg ?? [], ctx.io.readStdin);
  const hub = await ctx.session.agent();
  const res = await hub.runTool({
    provider: ref.provider,
    name: ref.name,
    arguments: args,
    timeoutMs: ctx.settings.timeoutMs ?? 0,
    ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
  }, options.progress ? { onProgress: (p) => ctx.out.note(...progressLines(p)) } : undefined);
  const failed = res.status === RunStatus.RUN_STATUS_TOOL_ERROR;
  const id = `${ref.provider}:${ref.name}`;
  if (ctx.out.json) {
    ctx.out.document({
      tool: id,
      status: failed ? 'tool_error' : 'ok',
      content: res.content,
      ...(res.structured !== undefined ? { structured: res.structured } : {}),
      ...(res.error ? { error: toolErrorJson(res.error) } : {}),
      fixes: res.fixes,
      attempts: res.attempts,
      servedBy: res.servedBy,
      latencyMs: res.latencyMs,
    });
    return failed ? EXIT_CODES.toolError : EXIT_CODES.ok;
  }
  for (const f of res.fixes) ctx.out.note(`note: argument ${f.field} was repaired: ${f.description}`);
  if (res.servedBy && res.servedBy !== id) ctx.out.note(`note: served by ${res.servedBy} (fallback for ${id})`);
  let body = res.content.map(blockText).filter((t) => t !== '').join('\n');
  if (body === '' && res.structured !== undefined) body = jsonDocument(res.structured).trimEnd();
  // Tool output is printed as it came (a CSV's final line break is not doubled).
  if (body !== '') ctx.io.stdout.write(body.endsWith('\n') ? body : `${body}\n`);
  if (failed) {
    const message = res.error?.message || 'the tool reported a failure without a message';
    ctx.out.note(`error tool_error: ${id} ran and reported a failure: ${message}`, ...detailLines(res.error, message));
    return EXIT_CODES.toolError;
  }
  if (body === '') ctx.out.note('(the tool returned no output)');
  return EXIT_CODES.ok;
}
