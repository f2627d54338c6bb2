/** Turning tool definitions into ones whose calls run on the worker pool. */
import type { ToolDefinition } from '@toolhub/adapter-sdk';

import type { ToolWorkerPool } from './worker-pool';

/**
 * The same definitions (metadata unchanged) with `run` sent to `pool`, where the worker builds the
 * same tools (see worker-main.ts) and validates the arguments there.
 */
export function runOnPool(definitions: readonly ToolDefinition[], pool: ToolWorkerPool): ToolDefinition[] {
  return definitions.map((definition) => ({ ...definition, run: (args, ctx) => pool.run(definition.name, args, ctx) }));
}
