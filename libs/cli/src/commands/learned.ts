/** `toolhub learned`: what search learned from use — which tool agents ran after which query. */
import type { ListSearchLearningResponse } from '@toolhub/contracts';

import type { CommandContext } from '../context';
import { EXIT_CODES, type ExitCode } from '../exit-codes';

/** Options of `learned`. */
export interface LearnedOptions {
  provider?: string;
  limit?: number;
}

/** Default number of pairs listed. */
export const DEFAULT_LEARNED_LIMIT = 20;

const HOUR_MS = 3600_000;

/** `168 h` as `7 d`; whole hours otherwise. */
function duration(ms: number): string {
  return ms % (24 * HOUR_MS) === 0 ? `${ms / (24 * HOUR_MS)} d` : ms >= HOUR_MS ? `${+(ms / HOUR_MS).toFixed(1)} h` : `${ms} ms`;
}

/** One line on the learning settings: what the table is a part of and how far it can move rankings. */
function bounds(res: ListSearchLearningResponse, provider: string | undefined): string {
  const held = `${res.total} learned pair${res.total === 1 ? '' : 's'}${provider ? ` of ${provider}` : ''} held`;
  return `${held} (at most ${res.maxPerProvider} per provider; weight halves every ${duration(res.halfLifeMs)}; lifts a tool's score by at most ×${+(1 + res.maxBoost).toFixed(2)}). Shared by the registry replicas and kept in the registry's store.`;
}

/**
 * Lists the newest learned pairs (query → tool, when, current weight), then the bounds on stderr;
 * exit 0, also when learning is switched off (stderr says so).
 */
export async function learnedCommand(ctx: CommandContext, options: LearnedOptions): Promise<ExitCode> {
  const res = await ctx.session.admin().listSearchLearning({ provider: options.provider ?? '', limit: options.limit ?? DEFAULT_LEARNED_LIMIT });
  if (ctx.out.json) {
    ctx.out.document(res);
    return EXIT_CODES.ok;
  }
  if (!res.enabled) {
    ctx.out.note('Learning from use is switched off on this registry (TOOLHUB_SEARCH_LEARNING=false): searches are not boosted by past runs.');
    return EXIT_CODES.ok;
  }
  if (res.entries.length === 0) {
    ctx.out.note(`Nothing learned yet${options.provider ? ` for ${options.provider}` : ''}: a pair is learned when an agent runs a tool with the search id of the search that found it.`);
    return EXIT_CODES.ok;
  }
  ctx.out.table(
    [{ header: 'WHEN' }, { header: 'TOOL' }, { header: 'WEIGHT', align: 'right' }, { header: 'QUERY', flex: true }],
    res.entries.map((e) => [new Date(e.atUnixMs).toISOString(), e.toolId, e.weight.toFixed(2), e.query]),
  );
  ctx.out.note(bounds(res, options.provider));
  return EXIT_CODES.ok;
}
