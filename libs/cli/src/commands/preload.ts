/**
 * `toolhub preload show|suggest|set`: the operator's preload list (the tools every agent gets in
 * its prompt next to the four meta-tools). Statistics suggest; a person sets it, with optimistic
 * concurrency (`--expected-revision`) so two operators cannot overwrite each other unknowingly.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { findToolHubCallError, ToolHubCallError } from '@toolhub/agent-kit';
import { ErrorCode, type ErrorInfo, parseToolId, type PreloadList, type PreloadSuggestion } from '@toolhub/contracts';

import type { CommandContext } from '../context';
import { CliUsageError } from '../errors';
import { EXIT_CODES, type ExitCode } from '../exit-codes';
import { formatAgo, formatPercent } from '../format';

function listLines(list: PreloadList, now: number): string[] {
  const head = list.revision
    ? `revision ${list.revision} · changed by ${list.changedBy || 'unknown'} ${formatAgo(list.changedUnixMs, now)}${list.comment ? ` · "${list.comment}"` : ''}`
    : 'revision 0 (never set)';
  if (list.toolIds.length === 0) return [head, '(empty: agents start with the four meta-tools only)'];
  const w = String(list.toolIds.length).length;
  return [head, ...list.toolIds.map((id, i) => `${String(i + 1).padStart(w)}  ${id}`)];
}

function emptyList(): PreloadList {
  return { toolIds: [], revision: 0, changedBy: '', changedUnixMs: 0, comment: '' };
}

/** `preload show`. */
export async function preloadShowCommand(ctx: CommandContext): Promise<ExitCode> {
  const list = (await ctx.session.admin().getPreloadList()).list ?? emptyList();
  if (ctx.out.json) ctx.out.document({ list });
  else {
    ctx.out.line(...listLines(list, ctx.io.now()));
    if (list.toolIds.length === 0) ctx.out.note('hint: toolhub preload suggest ranks tools by usage');
  }
  return EXIT_CODES.ok;
}

/** Options of `preload suggest`. */
export interface PreloadSuggestOptions {
  limit?: number;
}

function suggestionRows(items: readonly PreloadSuggestion[], now: number): string[][] {
  return items.map((s) => [s.score.toFixed(2), s.toolId, String(s.calls7d), s.calls7d ? formatPercent(s.successRate) : '-', formatAgo(s.lastCallUnixMs, now), s.reasons.join('; ')]);
}

/** `preload suggest`: ranked additions and possible removals, and the command that would apply them. Changes nothing. */
export async function preloadSuggestCommand(ctx: CommandContext, options: PreloadSuggestOptions): Promise<ExitCode> {
  const admin = ctx.session.admin();
  const [res, current] = await Promise.all([admin.suggestPreload({ limit: options.limit ?? 5 }), admin.getPreloadList()]);
  const list = current.list ?? emptyList();
  if (ctx.out.json) {
    ctx.out.document({ suggestions: res.suggestions, removals: res.removals, current: list });
    return EXIT_CODES.ok;
  }
  const now = ctx.io.now();
  const columns = [
    { header: 'SCORE', align: 'right' as const },
    { header: 'TOOL' },
    { header: 'CALLS 7D', align: 'right' as const },
    { header: 'OK', align: 'right' as const },
    { header: 'LAST CALL' },
    { header: 'WHY', flex: true },
  ];
  const additions = res.suggestions.filter((s) => !s.alreadyPreloaded);
  if (res.suggestions.length === 0 && res.removals.length === 0) {
    ctx.out.note('No suggestions yet: they are ranked from call statistics, and no tool has been called.');
    return EXIT_CODES.ok;
  }
  if (res.suggestions.length) {
    ctx.out.line('Suggested for the preload list (ranked by use; a person decides):');
    ctx.out.table(columns, suggestionRows(res.suggestions, now).map((r, i) => (res.suggestions[i]!.alreadyPreloaded ? [r[0]!, `${r[1]} (preloaded)`, ...r.slice(2)] : r)));
  }
  if (res.removals.length) {
    ctx.out.line('', 'Preloaded, but the numbers say they could go:');
    ctx.out.table(columns, suggestionRows(res.removals, now));
  }
  const removed = new Set(res.removals.map((r) => r.toolId));
  const next = [...list.toolIds.filter((id) => !removed.has(id)), ...additions.map((s) => s.toolId).filter((id) => !list.toolIds.includes(id))];
  if (next.join(' ') !== list.toolIds.join(' ')) {
    ctx.out.note('', 'To apply all of it:', `  toolhub preload set ${next.join(' ')} --expected-revision ${list.revision} --comment "from preload suggest"`);
  }
  return EXIT_CODES.ok;
}

/** Options of `preload set`. */
export interface PreloadSetOptions {
  expectedRevision?: number;
  by?: string;
  comment?: string;
  clear?: boolean;
  force?: boolean;
}

async function checkToolsExist(ctx: CommandContext, ids: readonly string[]): Promise<void> {
  const admin = ctx.session.admin();
  const missing: { id: string; suggestions: string[] }[] = [];
  await Promise.all(
    ids.map(async (id) => {
      const ref = parseToolId(id)!;
      try {
        await admin.getTool(ref);
      } catch (err) {
        const callErr = findToolHubCallError(err);
        if (callErr?.code !== 'not_found') throw err;
        missing.push({ id, suggestions: (callErr.info?.suggestions ?? []).map((s) => (s.includes(':') ? s : `${ref.provider}:${s}`)) });
      }
    }),
  );
  if (missing.length === 0) return;
  missing.sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
  const info: ErrorInfo = {
    code: ErrorCode.ERROR_CODE_NOT_FOUND,
    message: `The registry has no tool ${missing.map((m) => m.id).join(', ')}; the preload list was not changed. Check the ids with toolhub search or toolhub ls, or pass --force to set them anyway (e.g. for a provider that is not running yet).`,
    violations: [],
    suggestions: missing.flatMap((m) => m.suggestions),
    parentPath: '',
    fixes: [],
    retryable: false,
    retryAfterMs: 0,
  };
  throw new ToolHubCallError('not_found', info.message, { method: 'RegistryAdmin/GetTool', grpcStatus: GrpcStatus.NOT_FOUND, info, attempts: 1 });
}

/** `preload set <ids...>`: replaces the list (in the given order); `--clear` empties it. */
export async function preloadSetCommand(ctx: CommandContext, ids: string[], options: PreloadSetOptions): Promise<ExitCode> {
  if (ids.length === 0 && !options.clear) throw new CliUsageError('preload set needs the tool ids, in the order agents should see them (or --clear to empty the list).', 'toolhub preload set local:file_read local:math_calculate --expected-revision 3');
  if (ids.length > 0 && options.clear) throw new CliUsageError('give either tool ids or --clear, not both.');
  const bad = ids.filter((id) => !parseToolId(id));
  if (bad.length) throw new CliUsageError(`preload ids are <provider:name>; not: ${bad.join(', ')}.`, 'toolhub preload set local:file_read mcp:everything_echo');
  const dupes = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (dupes.length) throw new CliUsageError(`${[...new Set(dupes)].join(', ')} listed more than once.`);
  if (!options.force) await checkToolsExist(ctx, ids);
  const by = options.by || ctx.io.env['USER'] || ctx.io.env['USERNAME'] || 'toolhub-cli';
  const res = await ctx.session.admin().setPreloadList({ toolIds: ids, expectedRevision: options.expectedRevision ?? 0, changedBy: by, comment: options.comment ?? '' });
  const list = res.list ?? emptyList();
  if (ctx.out.json) ctx.out.document({ list });
  else {
    ctx.out.line(...listLines(list, ctx.io.now()));
    if (options.expectedRevision === undefined) ctx.out.note('note: set without --expected-revision, so a concurrent change would have been overwritten; pass the revision that preload show printed to guard against that.');
  }
  return EXIT_CODES.ok;
}
