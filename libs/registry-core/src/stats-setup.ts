/** How the apps that run a registry configure its statistics writes (shared by the registry app and the one-process mode). */
import { zDuration } from '@toolhub/config';

/**
 * The store's `statsFlushMs` the apps use: counted calls' statistics are written every 2 s, each
 * tool's document once for all batches of those 2 s, instead of once per batch (bench/registry:
 * several times less CPU per event at a few hundred calls/s). Statistics read through another
 * registry replica lag calls by up to this long.
 */
export const DEFAULT_STATS_FLUSH_MS = 2000;

/** Config field of the store's `statsFlushMs` (env TOOLHUB_STATS_FLUSH), spread into each app's `defineConfig`. */
export function statsConfigFields() {
  return {
    statsFlushMs: {
      env: 'TOOLHUB_STATS_FLUSH',
      schema: zDuration({ min: '0ms', max: '60s' }).default(DEFAULT_STATS_FLUSH_MS),
      description: 'How long counted calls wait before their statistics are written ("2s"), each tool once for all batches meanwhile; "0ms" = before each batch is acknowledged',
    },
  };
}
