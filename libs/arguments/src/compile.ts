/**
 * One tool version's schema, compiled: guarded against absurd sizes, dialect chosen from
 * `$schema`, compiled once, and never fatal. A schema that cannot be used yields an entry without a
 * validator (the tool runs unvalidated) plus the problem to report.
 */
import type { ValidateFunction } from 'ajv';

import { type AliasTargets, findAliasTargets } from './aliases';
import type { Engines } from './engines';
import { findSchemaCompileError, SchemaCompileError, type SchemaProblem } from './errors';
import { isPlainObject, type JsonObject } from './json';
import type { ResolvedArgumentValidatorOptions, SchemaDialect } from './options';
import { findPathTargets, type PathTarget } from './paths';
import { dialectOf, guardedCopy, holdBackDefaults, looksLike2020, modernise } from './schema-walk';

/** A compiled tool version. */
export interface CompiledSchema {
  /** Undefined when the schema could not be used: arguments then pass unvalidated. */
  validate: ValidateFunction | undefined;
  /** The private copy that was compiled (local `$ref`s in messages resolve against it). */
  root: JsonObject | undefined;
  dialect: SchemaDialect | undefined;
  /** Where path normalisation applies. */
  pathTargets: readonly PathTarget[];
  /** snake_case property names an argument with the source's name (`oldText`) is renamed to. */
  aliasTargets: AliasTargets;
  /** Whether Ajv may fill defaults (when not, no need to look for them). */
  hasDefaults: boolean;
  compileMs: number;
}

/** The compiled entry and, when something went wrong or was slow, the problem to report. */
export interface CompileOutcome {
  compiled: CompiledSchema;
  problem?: Omit<SchemaProblem, 'toolId' | 'version'>;
}

function unusable(error: SchemaCompileError, compileMs: number): CompileOutcome {
  return {
    compiled: { validate: undefined, root: undefined, dialect: undefined, pathTargets: [], aliasTargets: new Map(), hasDefaults: false, compileMs },
    problem: {
      code: error.code,
      message: `The input schema cannot be used (${error.message}); the tool's arguments are passed on without validation or repair.`,
      validationDisabled: true,
      compileMs,
      error,
    },
  };
}

/** Compiles one tool version's schema. Never throws. */
export function compileSchema(schema: unknown, engines: Engines, options: ResolvedArgumentValidatorOptions): CompileOutcome {
  const started = performance.now();
  if (typeof schema === 'boolean') {
    try {
      const validate = engines.compile(options.defaultDialect, schema);
      return { compiled: { validate, root: undefined, dialect: options.defaultDialect, pathTargets: [], aliasTargets: new Map(), hasDefaults: false, compileMs: performance.now() - started } };
    } catch (err) {
      return unusable(new SchemaCompileError('schema_invalid', String(err), { cause: err }), performance.now() - started);
    }
  }
  if (!isPlainObject(schema)) {
    return unusable(new SchemaCompileError('schema_invalid', `the schema is ${schema === null ? 'null' : typeof schema}, not a JSON Schema object`), 0);
  }
  let root: JsonObject;
  try {
    root = guardedCopy(schema, options);
  } catch (err) {
    return unusable(findSchemaCompileError(err) ?? new SchemaCompileError('schema_invalid', String(err), { cause: err }), performance.now() - started);
  }
  const declared = dialectOf(root['$schema']);
  // We choose the engine ourselves; an unknown `$schema` URI (draft-04, a typo) would otherwise
  // make Ajv look for a meta-schema it does not have.
  delete root['$schema'];
  modernise(root);
  const hasDefaults = holdBackDefaults(root);
  const first = declared ?? (looksLike2020(root) ? '2020-12' : options.defaultDialect);
  const candidates: SchemaDialect[] = declared ? [declared] : [first, first === '2020-12' ? 'draft-07' : '2020-12'];
  let lastError: unknown;
  for (const dialect of candidates) {
    try {
      const validate = engines.compile(dialect, root);
      const compileMs = performance.now() - started;
      const compiled: CompiledSchema = { validate, root, dialect, pathTargets: findPathTargets(root), aliasTargets: findAliasTargets(root), hasDefaults, compileMs };
      if (compileMs <= options.slowCompileMs) return { compiled };
      return {
        compiled,
        problem: {
          code: 'slow_compile',
          message: `Compiling the input schema took ${compileMs.toFixed(0)} ms (over ${options.slowCompileMs} ms); it is cached per version, but the schema may be needlessly large.`,
          validationDisabled: false,
          compileMs,
        },
      };
    } catch (err) {
      lastError = err;
    }
  }
  const detail = lastError instanceof Error ? lastError.message : String(lastError);
  return unusable(new SchemaCompileError('schema_invalid', `Ajv (${candidates.join(', then ')}) rejected it: ${detail.slice(0, 300)}`, { cause: lastError }), performance.now() - started);
}
