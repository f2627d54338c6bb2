/** `toolhub search <words...> [-q query ...]`: ranked keyword search over every provider. */
import { SearchMode } from '@toolhub/contracts';

import type { CommandContext } from '../context';
import { CliUsageError } from '../errors';
import { EXIT_CODES, type ExitCode } from '../exit-codes';

/** Options of `search`. */
export interface SearchOptions {
  query?: string[];
  provider?: string;
  path?: string;
  limit?: number;
  /** lexical | semantic | hybrid; unset = the registry's default (hybrid with embeddings, lexical without). */
  mode?: string;
}

/** `--mode` values and the wire enum. */
export const SEARCH_MODES: Readonly<Record<string, SearchMode>> = {
  lexical: SearchMode.SEARCH_MODE_LEXICAL,
  semantic: SearchMode.SEARCH_MODE_SEMANTIC,
  hybrid: SearchMode.SEARCH_MODE_HYBRID,
};

/** `lexical`, `semantic`, `hybrid` (or `default` for unspecified). */
export function searchModeName(mode: SearchMode): string {
  return Object.entries(SEARCH_MODES).find(([, m]) => m === mode)?.[0] ?? 'default';
}

/** Default number of hits. */
export const DEFAULT_SEARCH_LIMIT = 10;

/**
 * Searches. The positional words form one query; each `-q` adds another (hits of all queries are
 * merged and ranked by the server). Exit 0 even with no hits (stderr says so, with close names).
 */
export async function searchCommand(ctx: CommandContext, words: string[], options: SearchOptions): Promise<ExitCode> {
  const queries = [words.join(' ').trim(), ...(options.query ?? []).map((q) => q.trim())].filter((q) => q !== '');
  if (queries.length === 0) throw new CliUsageError('search needs what the tool should do, in a few words.', 'toolhub search convert json to csv');
  if (queries.length > 5) throw new CliUsageError(`search takes at most 5 queries; got ${queries.length}.`);
  const asked = options.mode === undefined ? SearchMode.SEARCH_MODE_UNSPECIFIED : SEARCH_MODES[options.mode.toLowerCase()];
  if (asked === undefined) throw new CliUsageError(`--mode must be one of ${Object.keys(SEARCH_MODES).join(', ')}; got ${JSON.stringify(options.mode)}.`, 'toolhub search --mode hybrid send an email');
  const res = await (await ctx.session.agent()).searchTools({ queries, provider: options.provider ?? '', path: options.path ?? '', limit: options.limit ?? DEFAULT_SEARCH_LIMIT, mode: asked });
  // Which ranking answered and why (e.g. lexical because the embeddings endpoint is down).
  const mode = searchModeName(res.mode);
  const requestedMode = searchModeName(asked);
  if (ctx.out.json) {
    ctx.out.document({ queries, mode, requestedMode, note: res.note, hits: res.hits, suggestions: res.suggestions });
    return EXIT_CODES.ok;
  }
  ctx.out.note(`mode: ${mode}${requestedMode !== 'default' && requestedMode !== mode ? ` (asked: ${requestedMode})` : ''}${res.note ? ` — ${res.note}` : ''}`);
  if (res.hits.length === 0) {
    ctx.out.note(`no tools matched ${queries.map((q) => JSON.stringify(q)).join(', ')}.`);
    if (res.suggestions.length) ctx.out.note(`did you mean: ${res.suggestions.join(', ')}`);
    ctx.out.note('hint: try other or fewer words, or browse with toolhub ls');
    return EXIT_CODES.ok;
  }
  ctx.out.table(
    [{ header: 'SCORE', align: 'right' }, { header: 'TOOL' }, { header: 'PATH' }, { header: 'SUMMARY', flex: true }],
    res.hits.map((h) => [h.score.toFixed(2), h.id, h.path || '/', h.summary]),
  );
  if (res.suggestions.length) ctx.out.note(`see also: ${res.suggestions.join(', ')}`);
  ctx.out.note(`next: toolhub info ${res.hits[0]!.id}`);
  return EXIT_CODES.ok;
}
