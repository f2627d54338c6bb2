/** Options of the argument validator, with every default in one place. */
import type { SchemaProblem } from './errors';

/** JSON Schema dialects the validator compiles with. */
export type SchemaDialect = 'draft-07' | '2019-09' | '2020-12';

export interface ArgumentValidatorOptions {
  /** Compiled schemas kept (tool id + version each); least recently used are dropped. @default 2000 */
  cacheSize?: number;
  /**
   * Dialect for a schema without a recognised `$schema`. When it fails to compile, the other of
   * draft-07 / 2020-12 is tried before giving up. Schemas that use 2020-12-only keywords
   * (`prefixItems`, `$defs`, `unevaluated*`, `$dynamicRef`, `dependent*`) are sniffed as 2020-12.
   * @default 'draft-07' (what most MCP servers emit, e.g. zod-to-json-schema)
   */
  defaultDialect?: SchemaDialect;
  /** Largest schema accepted, as JSON text length. Larger schemas are not compiled. @default 524288 (512 KiB) */
  maxSchemaBytes?: number;
  /** Most objects/arrays a schema may contain. @default 20000 */
  maxSchemaNodes?: number;
  /** Deepest nesting a schema may have. @default 64 */
  maxSchemaDepth?: number;
  /** A compile slower than this is reported as a `slow_compile` problem (the schema is still used). @default 200 */
  slowCompileMs?: number;
  /** Deepest nesting accepted in arguments; deeper input is rejected as invalid_argument. @default 32 */
  maxArgumentDepth?: number;
  /** Most violations listed in one error; the message says how many more there were. @default 50 */
  maxViolations?: number;
  /** Check `format` (date-time, email, uri, uuid, ... via ajv-formats). @default true */
  validateFormats?: boolean;
  /**
   * A new Ajv instance replaces the old one after this many compiles, so the compiled code and
   * the values Ajv keeps per instance do not grow without bound in a long-running dispatcher.
   * @default 500
   */
  recycleEngineAfter?: number;
  /**
   * Called once per compile when a tool's schema cannot be used (the tool then runs without
   * validation) or compiled slowly. Third-party MCP/OpenAPI schemas are often sloppy; a bad one
   * must not make the tool unusable. Exceptions thrown by the callback are swallowed.
   * @default no-op
   */
  onSchemaProblem?: (problem: SchemaProblem) => void;
}

export type ResolvedArgumentValidatorOptions = Required<ArgumentValidatorOptions>;

/**
 * Fills in every default.
 * @throws RangeError when a numeric option is not a positive integer (names the option).
 */
export function withDefaults(options: ArgumentValidatorOptions = {}): ResolvedArgumentValidatorOptions {
  const resolved: ResolvedArgumentValidatorOptions = {
    cacheSize: options.cacheSize ?? 2000,
    defaultDialect: options.defaultDialect ?? 'draft-07',
    maxSchemaBytes: options.maxSchemaBytes ?? 512 * 1024,
    maxSchemaNodes: options.maxSchemaNodes ?? 20_000,
    maxSchemaDepth: options.maxSchemaDepth ?? 64,
    slowCompileMs: options.slowCompileMs ?? 200,
    maxArgumentDepth: options.maxArgumentDepth ?? 32,
    maxViolations: options.maxViolations ?? 50,
    validateFormats: options.validateFormats ?? true,
    recycleEngineAfter: options.recycleEngineAfter ?? 500,
    onSchemaProblem: options.onSchemaProblem ?? (() => undefined),
  };
  for (const key of ['cacheSize', 'maxSchemaBytes', 'maxSchemaNodes', 'maxSchemaDepth', 'slowCompileMs', 'maxArgumentDepth', 'maxViolations', 'recycleEngineAfter'] as const) {
    const value = resolved[key];
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`ArgumentValidator option ${key} must be a positive integer, got ${String(value)}`);
  }
  return resolved;
}
