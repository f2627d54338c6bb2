/** How the apps that run a registry configure its statistics writes (shared by the registry app and the one-process mode). */
import { zDuration } from '@toolhub/config';

/**
 * The store's `statsFlushMs` the apps use: counted calls' statistics are written every 60 s, each
 * tool's document once for all batches of that minute instead of once per batch. The per-tool
 * writes are most of the statistics' cost, so fewer of them is most of the saving (10 s against
 * 60 s measured in bench/registry README, "trickle"). Reads through the same store are exact;
 * statistics read through another registry replica lag calls by up to this long.
 */
export const DEFAULT_STATS_FLUSH_MS = 60_000;

/** Config field of the store's `statsFlushMs` (env TOOLHUB_STATS_FLUSH), spread into each app's `defineConfig`. */
export function statsConfigFields() {
  return {
    statsFlushMs: {
      env: 'TOOLHUB_STATS_FLUSH',
      schema: zDuration({ min: '0ms', max: '60s' }).default(DEFAULT_STATS_FLUSH_MS),
      description: 'How long counted calls wait before their statistics are written ("60s"), each tool once for all batches meanwhile; reads through this registry are exact, other replicas see counts this much later; "0ms" = before each batch is acknowledged',
    },
  };
}
