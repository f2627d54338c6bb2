/** Options of {@link createLocalTools}: one object for every category, defaults filled in one place. */
import { LocalToolsError } from './errors';
import { FILE_TOOLS_DEFAULTS, withFileDefaults } from './file/options';
import type { MathEngine } from './math/engine';
import type { ToolWorkerPool } from './pool/worker-pool';

/** The categories (top-level paths) of the local tools. */
export const LOCAL_TOOL_CATEGORIES = ['file', 'data', 'math', 'time', 'text'] as const;
export type LocalToolCategory = (typeof LOCAL_TOOL_CATEGORIES)[number];

/** Options of {@link createLocalTools}. */
export interface LocalToolsOptions {
  /** Folder the file tools are confined to (relative paths resolve against the working directory). */
  root: string;
  /** Most bytes of text one file_read call returns. @default 262144 (256 KiB) */
  maxReadBytes?: number;
  /** Largest content file_write accepts, in bytes. @default 1048576 (1 MiB) */
  maxWriteBytes?: number;
  /** Most entries one file_list call returns. @default 1000 */
  maxListEntries?: number;
  /** Offer file_write; false makes the file category read-only. @default true */
  allowWrite?: boolean;
  /** Quota of the root: most bytes in its files. @default 268435456 (256 MiB) */
  maxRootBytes?: number;
  /** Quota of the root: most files and folders. @default 10000 */
  maxRootFiles?: number;
  /** Which categories to offer. @default every category: ['file', 'data', 'math', 'time', 'text'] */
  categories?: readonly LocalToolCategory[];
  /** Time budget of one math_calculate evaluation, in ms. @default 2000 */
  mathTimeoutMs?: number;
  /** Engine for math_calculate, e.g. to close its worker on shutdown. @default a new engine, started on first use */
  mathEngine?: MathEngine;
  /** The clock of the time tools. @default () => new Date() */
  now?: () => Date;
  /**
   * Worker threads for the CPU-heavy data and text tools, each call bounded by its deadline; pass
   * your own to `close()` it on shutdown, or `false` to run them on the calling thread (tests).
   * @default a new {@link ToolWorkerPool}, started on first use
   */
  toolPool?: ToolWorkerPool | false;
}

/** {@link LocalToolsOptions} with every default filled in (mathEngine stays optional). */
export type ResolvedLocalToolsOptions = Required<Omit<LocalToolsOptions, 'mathEngine' | 'toolPool'>> & Pick<LocalToolsOptions, 'mathEngine' | 'toolPool'>;

/** Default values of {@link LocalToolsOptions}. */
export const LOCAL_TOOLS_DEFAULTS = {
  ...FILE_TOOLS_DEFAULTS,
  categories: LOCAL_TOOL_CATEGORIES,
  mathTimeoutMs: 2000,
} as const;

/**
 * Fills in defaults and checks values.
 * @throws LocalToolsError invalid_options naming the field: missing root, a limit that is not a
 *   positive integer, an unknown or repeated category, or an empty category list.
 */
export function withDefaults(options: LocalToolsOptions): ResolvedLocalToolsOptions {
  const categories = options.categories ?? LOCAL_TOOLS_DEFAULTS.categories;
  const unknown = categories.filter((c) => !(LOCAL_TOOL_CATEGORIES as readonly string[]).includes(c));
  if (unknown.length > 0 || categories.length === 0 || new Set(categories).size !== categories.length) {
    throw new LocalToolsError(
      'invalid_options',
      `categories must be a non-empty list without repeats from ${LOCAL_TOOL_CATEGORIES.join(', ')}; got ${JSON.stringify(categories)}.`,
    );
  }
  // The file options are checked even when the file category is off, so a typo never hides.
  const file = withFileDefaults({ ...options, root: options.root });
  const mathTimeoutMs = options.mathTimeoutMs ?? LOCAL_TOOLS_DEFAULTS.mathTimeoutMs;
  if (!Number.isInteger(mathTimeoutMs) || mathTimeoutMs < 10) {
    throw new LocalToolsError('invalid_options', `mathTimeoutMs must be an integer of at least 10 ms; got ${String(options.mathTimeoutMs)}.`);
  }
  if (options.mathEngine !== undefined && options.mathTimeoutMs !== undefined) {
    throw new LocalToolsError('invalid_options', 'mathTimeoutMs and mathEngine were both given; set the timeout on the engine (MathEngine.create({ timeoutMs })) instead.');
  }
  const resolved: ResolvedLocalToolsOptions = {
    ...file,
    categories: [...categories],
    mathTimeoutMs,
    now: options.now ?? ((): Date => new Date()),
  };
  if (options.mathEngine !== undefined) resolved.mathEngine = options.mathEngine;
  if (options.toolPool !== undefined) resolved.toolPool = options.toolPool;
  return resolved;
}
