/** Argument checking of runs: the validator port, its Ajv default, and argument mapping for fallbacks. */
import type { SdkLogger } from '@toolhub/adapter-sdk';
import { ArgumentValidator } from '@toolhub/arguments';
import { type AppliedFix, measureArguments, type ToolInfo } from '@toolhub/contracts';

import type { ArgumentWorkerPool } from './argument-workers';

/** What validation returns: the arguments to run with and the fixes applied. */
export interface ValidatedArguments {
  args: Record<string, unknown>;
  fixes: AppliedFix[];
}

/** Checks and repairs arguments against a tool's schema. @throws ToolHubError invalid_argument */
export interface ArgumentsValidator {
  /** A promise when the work happens elsewhere (large arguments on a worker thread). */
  validate(tool: ToolInfo, args: Record<string, unknown>): ValidatedArguments | Promise<ValidatedArguments>;
  /** Readies the validator at warm start (see `Dispatcher.warmCoreTools`), so the first calls do not pay for it. */
  warmUp?(): void;
  /** Compiles `tool`'s schema ahead of its first call. */
  prepare?(tool: ToolInfo): void;
}

/** Where large arguments are validated (see {@link defaultValidator}). */
export interface OffThreadOptions {
  pool: ArgumentWorkerPool;
  /** Arguments of at least this many bytes (as JSON) go to the pool. */
  minBytes: number;
  /** Arguments with at least this many properties and array items go to the pool. */
  minNodes: number;
}

/**
 * Validation and safe repair against each tool's JSON Schema, compiled once per tool version; with
 * `offThread`, arguments past its size thresholds are validated on its worker pool.
 */
export function defaultValidator(maxArgumentDepth: number, log: SdkLogger, offThread?: OffThreadOptions): ArgumentsValidator {
  // Measuring stops at minNodes, so deciding costs at most that many steps.
  const threshold = offThread ? { maxBytes: offThread.minBytes - 1, maxNodes: offThread.minNodes - 1, maxDepth: Number.MAX_SAFE_INTEGER } : undefined;
  const validator = new ArgumentValidator({
    maxArgumentDepth,
    // A third-party schema Ajv cannot use is reported once; such calls are checked by the adapter only.
    onSchemaProblem: (p) => log.warn({ tool: p.toolId, version: p.version, code: p.code, detail: p.message }, 'tool schema unusable for validation'),
  });
  return {
    validate: (tool, args) => {
      const schema = tool.inputSchema ?? { type: 'object' };
      if (offThread && threshold && measureArguments(args, threshold).exceeded) {
        // Compiled here too (cached; an unusable schema is logged once, as for small calls).
        validator.prepare(tool.id, tool.version, schema);
        return offThread.pool.validate(tool.id, tool.version, schema, args);
      }
      const res = validator.validateAndRepair(tool.id, tool.version, tool.inputSchema ?? { type: 'object' }, args);
      return { args: res.args, fixes: res.fixes };
    },
    warmUp: () => validator.warmUp(),
    prepare: (tool) => validator.prepare(tool.id, tool.version, tool.inputSchema ?? { type: 'object' }),
  };
}

/** Keeps the arguments whose names the fallback tool's schema knows (fallbacks are "equivalent tools"). */
export function mapArgumentsByName(args: Record<string, unknown>, target: ToolInfo): Record<string, unknown> {
  const props = (target.inputSchema?.['properties'] ?? {}) as Record<string, unknown>;
  const names = Object.keys(props);
  if (names.length === 0) return args;
  return Object.fromEntries(Object.entries(args).filter(([k]) => names.includes(k)));
}
