/** Argument checking of runs: the validator port, its Ajv default, and argument mapping for fallbacks. */
import type { SdkLogger } from '@toolhub/adapter-sdk';
import { ArgumentValidator } from '@toolhub/arguments';
import type { AppliedFix, ToolInfo } from '@toolhub/contracts';

/** Checks and repairs arguments against a tool's schema. @throws ToolHubError invalid_argument */
export interface ArgumentsValidator {
  validate(tool: ToolInfo, args: Record<string, unknown>): { args: Record<string, unknown>; fixes: AppliedFix[] };
  /** Readies the validator at warm start (see `Dispatcher.warmCoreTools`), so the first calls do not pay for it. */
  warmUp?(): void;
  /** Compiles `tool`'s schema ahead of its first call. */
  prepare?(tool: ToolInfo): void;
}

/** Validation and safe repair against each tool's JSON Schema, compiled once per tool version. */
export function defaultValidator(maxArgumentDepth: number, log: SdkLogger): ArgumentsValidator {
  const validator = new ArgumentValidator({
    maxArgumentDepth,
    // A third-party schema Ajv cannot use is reported once; such calls are checked by the adapter only.
    onSchemaProblem: (p) => log.warn({ tool: p.toolId, version: p.version, code: p.code, detail: p.message }, 'tool schema unusable for validation'),
  });
  return {
    validate: (tool, args) => {
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
