/**
 * ArgumentValidator: checks a tool call's arguments against the tool's input schema before the
 * run, applies the safe repairs (each reported), and rejects the rest with every field's problem,
 * the expected type and an example, so an LLM can fix its call in one go.
 */
import { type AppliedFix, type FieldViolation, ToolHubError } from '@toolhub/contracts';
import { LRUCache } from 'lru-cache';

import { type CompiledSchema, compileSchema } from './compile';
import { Engines } from './engines';
import { childPointer, cloneJson, displayPointer, isPlainObject, type JsonObject, preview, readSlot, slotAt, tooDeepPointer, TooDeepError } from './json';
import { type ArgumentValidatorOptions, type ResolvedArgumentValidatorOptions, withDefaults } from './options';
import { applyNameAliases, renameKeys } from './aliases';
import { applyPathNormalisation } from './paths';
import { repair, type RepairState, restoreNull } from './repairs';
import { toViolations } from './violations';

/** At most this many repair rounds (wrap → coerce the item → ... each needs one). */
const MAX_ROUNDS = 6;
/** Violations spelled out in the error message; all of them are in `violations`. */
const VIOLATIONS_IN_MESSAGE = 8;
/**
 * Past this many validation errors, arguments are not repaired and only the first errors are
 * described: with 180,000 unknown properties, describing every one (a "did you mean" search each)
 * took seconds. A call that wrong gets the first problems and the count, which is enough to redo it.
 */
const MAX_ERRORS_WORKED = 200;

/** What {@link ArgumentValidator.validateAndRepair} returns. */
export interface RepairResult {
  /** The arguments to run with: a fresh copy, repaired and with defaults filled in. */
  args: Record<string, unknown>;
  /** Every change made, in the order made; empty when the arguments were valid as given. */
  fixes: AppliedFix[];
  /** False when the tool's schema could not be used and the arguments were passed on unchecked. */
  validated: boolean;
}

/** Counters for metrics and tests. */
export interface ArgumentValidatorStats {
  /** Compiled tool versions in the cache. */
  entries: number;
  hits: number;
  misses: number;
  /** Tool versions whose schema could not be used (validation disabled). */
  unusableSchemas: number;
}

/**
 * Validates and repairs tool arguments against JSON Schemas (draft-07, 2019-09, 2020-12), compiling
 * each tool version's schema once into a bounded LRU cache. Synchronous and safe to share.
 */
export class ArgumentValidator {
  readonly options: ResolvedArgumentValidatorOptions;
  private readonly cache: LRUCache<string, CompiledSchema>;
  private readonly engines: Engines;
  private hits = 0;
  private misses = 0;
  private unusable = 0;

  /** @throws RangeError when an option is out of range (see {@link withDefaults}). */
  constructor(options: ArgumentValidatorOptions = {}) {
    this.options = withDefaults(options);
    this.cache = new LRUCache({ max: this.options.cacheSize });
    this.engines = new Engines(this.options.validateFormats, this.options.recycleEngineAfter);
  }

  /**
   * Checks `args` against `schema`, the input schema of version `version` of tool `toolId`, and
   * returns a repaired copy (the input is never mutated). The schema is compiled on the first call
   * for a tool id + version and reused after that: pass a new version whenever the schema changes.
   * A schema that cannot be used is reported once through `onSchemaProblem`, and its tool's
   * arguments then pass unchecked (`validated: false`).
   *
   * @throws ToolHubError `invalid_argument` when the arguments are still invalid after the safe
   *   repairs, with one violation per problem (JSON pointer, message, expected type, example) and
   *   the fixes that were applied; also when they nest deeper than `maxArgumentDepth`.
   * @throws ToolHubError `internal` on an unexpected failure inside the validator.
   */
  validateAndRepair(toolId: string, version: string, schema: unknown, args: Readonly<Record<string, unknown>>): RepairResult {
    const compiled = this.compiled(toolId, version, schema);
    let copy: unknown;
    try {
      copy = cloneJson(args, this.options.maxArgumentDepth);
    } catch (err) {
      if (!(err instanceof TooDeepError)) throw ToolHubError.internal(`Copying the arguments failed: ${(err as Error).message}`, err);
      const field = displayPointer(tooDeepPointer(args, this.options.maxArgumentDepth));
      throw ToolHubError.invalidArgument(`The arguments for ${toolId} nest deeper than ${this.options.maxArgumentDepth} levels (at ${field}); flatten the input.`, [
        { field, message: `nesting depth exceeds ${this.options.maxArgumentDepth}`, expected: `at most ${this.options.maxArgumentDepth} levels of objects/arrays` },
      ]);
    }
    if (compiled.validate === undefined) return { args: copy as Record<string, unknown>, fixes: [], validated: false };
    try {
      return this.check(toolId, compiled, args, { root: copy });
    } catch (err) {
      if (err instanceof ToolHubError) throw err;
      throw ToolHubError.internal(`Validating the arguments for ${toolId} failed unexpectedly: ${(err as Error).message}. This is a ToolHub fault, not a problem with the call.`, err);
    }
  }

  /**
   * Compiles the schema of version `version` of tool `toolId` now, so the tool's first call does
   * not pay for it (a schema that cannot be used is reported through `onSchemaProblem`, as on a
   * call). Never throws.
   */
  prepare(toolId: string, version: string, schema: unknown): void {
    this.compiled(toolId, version, schema);
  }

  /**
   * Builds the Ajv instance of the default dialect and compiles its meta-schema, which Ajv does on
   * the first schema it compiles: about 100–200 ms of CPU that would otherwise fall on the first
   * call after a start, when a burst of calls may be waiting behind it. Never throws.
   */
  warmUp(): void {
    this.engines.warmUp(this.options.defaultDialect);
  }

  /** Cache and error counters. */
  stats(): ArgumentValidatorStats {
    return { entries: this.cache.size, hits: this.hits, misses: this.misses, unusableSchemas: this.unusable };
  }

  /** Drops every compiled schema (they are compiled again on next use). */
  clear(): void {
    this.cache.clear();
  }

  private compiled(toolId: string, version: string, schema: unknown): CompiledSchema {
    const key = `${toolId}\u0000${version}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      this.hits++;
      return cached;
    }
    this.misses++;
    const { compiled, problem } = compileSchema(schema, this.engines, this.options);
    this.cache.set(key, compiled);
    if (problem) {
      if (problem.validationDisabled) this.unusable++;
      try {
        this.options.onSchemaProblem({ toolId, version, ...problem });
      } catch {
        // A failing logger must not fail the call; the problem is also visible in stats().
      }
    }
    return compiled;
  }

  private check(toolId: string, compiled: CompiledSchema, original: unknown, holder: { root: unknown }): RepairResult {
    const validate = compiled.validate!;
    const fixes: AppliedFix[] = [];
    const targets = compiled.pathTargets;
    const renamed = compiled.aliasTargets.size > 0 ? applyNameAliases(holder, compiled.aliasTargets, fixes) : undefined;
    const before = renamed ? renameKeys(original, renamed) : original;
    if (targets.length > 0) applyPathNormalisation(holder, targets, fixes);
    if (!validate(holder.root)) this.repairRounds(toolId, compiled, holder, fixes);
    if (compiled.hasDefaults) reportDefaults(before, holder.root, '', fixes);
    return { args: holder.root as Record<string, unknown>, fixes, validated: true };
  }

  /**
   * Repairs what the last validation complained about, validates again, and repeats while
   * something changed (a wrapped value may then need its item converted, parsed JSON its fields).
   * @throws ToolHubError invalid_argument with what is still wrong.
   */
  private repairRounds(toolId: string, compiled: CompiledSchema, holder: { root: unknown }, fixes: AppliedFix[]): void {
    const validate = compiled.validate!;
    const targets = compiled.pathTargets;
    const state: RepairState = { holder, repaired: new Set(), removedNulls: new Map(), maxDepth: this.options.maxArgumentDepth };
    const nullFixes = new Map<string, AppliedFix>();
    let valid = false;
    for (let round = 0; !valid && round < MAX_ROUNDS; round++) {
      const errors = validate.errors ?? [];
      if (errors.length > MAX_ERRORS_WORKED) break; // far from valid: reject (bounded cost) instead of repairing
      let changed = false;
      // A null removed from a property that turns out to be required goes back: it was not optional.
      for (const error of errors) {
        if (error.keyword !== 'required') continue;
        const pointer = childPointer(error.instancePath, String((error.params as { missingProperty?: unknown }).missingProperty));
        const record = state.removedNulls.get(pointer);
        if (record === undefined || !restoreNull(holder, record)) continue;
        state.removedNulls.delete(pointer);
        const fix = nullFixes.get(pointer);
        if (fix) fixes.splice(fixes.indexOf(fix), 1);
        nullFixes.delete(pointer);
        changed = true;
      }
      for (const error of errors) {
        const fix = repair(error, state);
        if (fix === undefined) continue;
        fixes.push(fix);
        if (state.removedNulls.has(error.instancePath)) nullFixes.set(error.instancePath, fix);
        changed = true;
      }
      if (!changed) break;
      if (targets.length > 0) applyPathNormalisation(holder, targets, fixes);
      valid = validate(holder.root);
    }
    if (!valid) throw this.rejection(toolId, compiled, validate.errors ?? [], fixes);
    for (const [pointer, fix] of nullFixes) {
      const slot = slotAt(holder, pointer);
      if (slot !== undefined) fix.description = `replaced null with the default ${preview(readSlot(slot))} (null means "not given" for an optional property)`;
    }
  }

  private rejection(toolId: string, compiled: CompiledSchema, errors: Parameters<typeof toViolations>[0], fixes: AppliedFix[]): ToolHubError {
    const capped = errors.length > MAX_ERRORS_WORKED;
    let violations: FieldViolation[] = toViolations(capped ? errors.slice(0, MAX_ERRORS_WORKED) : errors, compiled.root);
    if (violations.length === 0) {
      violations = [{ field: '/', message: errors[0]?.message ?? 'does not match the input schema', expected: '', example: '' }];
    }
    // Capped: Ajv's error count stands in for the problems not described (it may count one twice).
    const total = capped ? Math.max(errors.length, violations.length) : violations.length;
    violations = violations.slice(0, this.options.maxViolations);
    const lines = violations.slice(0, VIOLATIONS_IN_MESSAGE).map((v) => {
      const hints = [v.expected && `expected ${v.expected}`, v.example && `e.g. ${v.example}`].filter(Boolean).join('; ');
      return `- ${v.field}: ${v.message}${hints ? ` [${hints}]` : ''}`;
    });
    if (total > VIOLATIONS_IN_MESSAGE) lines.push(`- …and ${total - VIOLATIONS_IN_MESSAGE} more${total > violations.length ? ` (${violations.length} listed in violations)` : ' (see violations)'}`);
    if (capped) lines.push(`- (${errors.length} validation errors in all: only the first ${MAX_ERRORS_WORKED} were examined and nothing was repaired)`);
    const repaired = fixes.length ? `\nAlready repaired (keep these): ${fixes.map((f) => `${f.field} ${f.description}`).join('; ')}.` : '';
    const message =
      `The arguments for ${toolId} do not match its input schema (${total} problem${total === 1 ? '' : 's'}):\n${lines.join('\n')}${repaired}\n` +
      'Fix every listed field and call the tool again; tool_info shows the full schema.';
    return ToolHubError.invalidArgument(message, violations, fixes);
  }
}

/** Reports, as fixes, the properties Ajv filled with their defaults (present now, absent before). */
function reportDefaults(before: unknown, after: unknown, pointer: string, fixes: AppliedFix[], depth = 0): void {
  if (depth > 64) return;
  if (isPlainObject(after) && isPlainObject(before)) {
    for (const key of Object.keys(after)) {
      const was = (before as JsonObject)[key];
      const now = after[key];
      if (was === undefined) fixes.push({ field: childPointer(pointer, key), description: `filled the missing optional property with its default ${preview(now)}` });
      // Only containers can hold filled defaults; building pointers for every leaf would cost more than the rest of a call.
      else if (was !== null && typeof was === 'object' && now !== null && typeof now === 'object') reportDefaults(was, now, childPointer(pointer, key), fixes, depth + 1);
    }
  } else if (Array.isArray(after) && Array.isArray(before)) {
    for (let i = 0; i < after.length; i++) {
      const was: unknown = before[i];
      const now: unknown = after[i];
      if (i >= before.length) fixes.push({ field: childPointer(pointer, i), description: `filled the missing item with its default ${preview(now)}` });
      else if (was !== null && typeof was === 'object' && now !== null && typeof now === 'object') reportDefaults(was, now, childPointer(pointer, i), fixes, depth + 1);
    }
  }
}
