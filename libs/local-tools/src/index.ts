/**
 * @toolhub/local-tools — useful tools implemented in TypeScript, served by the local adapter:
 * file (confined to one root folder), data (JSON ↔ CSV), math (a sandboxed math.js calculator),
 * time (IANA time zones) and text utilities. Also `defineTool`, the zod-based way to write more.
 * Any new export added here becomes public API.
 */
import type { ToolDefinition } from '@toolhub/adapter-sdk';

import { createDataTools } from './data/tools';
import { createFileTools } from './file/tools';
import { createMathTools } from './math/tools';
import { LOCAL_TOOL_CATEGORIES, type LocalToolsOptions, withDefaults } from './options';
import { runOnPool } from './pool/pooled';
import { ToolWorkerPool } from './pool/worker-pool';
import { createTextTools } from './text/tools';
import { createTimeTools } from './time/tools';

export { defineTool, type ToolSpec, type ToolExample } from './define';
export { issuesToViolations, toJsonPointer } from './violations';
export { LocalToolsError, type LocalToolsErrorCode } from './errors';
export {
  type LocalToolsOptions,
  type ResolvedLocalToolsOptions,
  type LocalToolCategory,
  LOCAL_TOOL_CATEGORIES,
  LOCAL_TOOLS_DEFAULTS,
  withDefaults,
} from './options';
export { createFileTools } from './file/tools';
export { type FileToolsOptions, FILE_TOOLS_DEFAULTS } from './file/options';
export { createDataTools, type DataToolsOptions, DATA_TOOLS_DEFAULTS } from './data/tools';
export { createMathTools, type MathToolsOptions } from './math/tools';
export { MathEngine, type MathEngineOptions, MATH_ENGINE_DEFAULTS, DISABLED_FUNCTIONS } from './math/engine';
export { createTimeTools, type TimeToolsOptions } from './time/tools';
export { createTextTools, type TextToolsOptions, TEXT_TOOLS_DEFAULTS } from './text/tools';
export { ToolWorkerPool, type ToolWorkerPoolOptions, type ToolWorkerPoolStats, BUNDLED_WORKER_FILE } from './pool/worker-pool';
export { runToolWorker } from './pool/worker-main';

/**
 * Every local tool of the chosen categories, in a stable order (file, data, math, time, text).
 * Cheap to call: nothing is opened or started until a tool runs (math_calculate starts its
 * worker thread on first use; the data and text tools run on `toolPool`, started on first use).
 * @throws LocalToolsError invalid_options for bad options (see {@link withDefaults}).
 */
export function createLocalTools(options: LocalToolsOptions): ToolDefinition[] {
  const o = withDefaults(options);
  const tools: ToolDefinition[] = [];
  const pool = o.toolPool === false ? undefined : (o.toolPool ?? ToolWorkerPool.create());
  const heavy = (definitions: ToolDefinition[]): ToolDefinition[] => (pool ? runOnPool(definitions, pool) : definitions);
  for (const category of LOCAL_TOOL_CATEGORIES.filter((c) => o.categories.includes(c))) {
    switch (category) {
      case 'file':
        tools.push(...createFileTools(o));
        break;
      case 'data':
        tools.push(...heavy(createDataTools()));
        break;
      case 'math':
        tools.push(...createMathTools(o.mathEngine ? { engine: o.mathEngine } : { timeoutMs: o.mathTimeoutMs }));
        break;
      case 'time':
        tools.push(...createTimeTools({ now: o.now }));
        break;
      case 'text':
        tools.push(...heavy(createTextTools()));
        break;
    }
  }
  return tools;
}
