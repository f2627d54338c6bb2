/**
 * The Ajv instances, one per dialect, created on first use and replaced after a number of compiles
 * (Ajv keeps every compiled schema and its code values per instance; recycling bounds that memory
 * in a long-running dispatcher — validators already compiled keep working, and the old instance is
 * collected once the cache has dropped them).
 */
import Ajv, { type Options, type ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

import type { SchemaDialect } from './options';

type RegExpEngine = NonNullable<NonNullable<Options['code']>['regExp']>;

/**
 * Tries the pattern as Unicode first (what JSON Schema means), then without the `u` flag: sloppy
 * schemas write `[\w\_]`, which only non-Unicode RegExps accept. Same result for every sane pattern.
 */
const lenientRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    try {
      return new RegExp(pattern, flags);
    } catch (err) {
      if (!flags.includes('u')) throw err;
      return new RegExp(pattern, flags.replace('u', ''));
    }
  },
  { code: 'new RegExp' },
);

function isRegExp(text: string): boolean {
  try {
    lenientRegExp(text, 'u');
    return true;
  } catch {
    return false;
  }
}

function create(dialect: SchemaDialect, validateFormats: boolean): Ajv {
  const options: Options = {
    strict: false,
    allErrors: true,
    verbose: true,
    useDefaults: true,
    // Ajv reads `data.x !== undefined` by default, which finds inherited properties ("toString").
    ownProperties: true,
    // Tools' schemas are compiled on their own; one tool's `$id` must never clash with another's.
    addUsedSchema: false,
    validateFormats,
    logger: false,
    code: { regExp: lenientRegExp },
  };
  const ajv = dialect === '2020-12' ? new Ajv2020(options) : dialect === '2019-09' ? new Ajv2019(options) : new Ajv(options);
  addFormats(ajv);
  // Meta-schemas check `pattern` with the `regex` format: accept what lenientRegExp accepts.
  ajv.addFormat('regex', isRegExp);
  // ToolHub's own hint for path normalisation; any string is a valid path as far as JSON Schema goes.
  ajv.addFormat('path', true);
  return ajv;
}

/** Ajv instances by dialect, recycled after `recycleAfter` compiles each. */
export class Engines {
  private readonly instances = new Map<SchemaDialect, { ajv: Ajv; compiles: number }>();

  constructor(
    private readonly validateFormats: boolean,
    private readonly recycleAfter: number,
  ) {}

  /**
   * Compiles `schema` with the dialect's instance.
   * @throws whatever Ajv throws for a schema it cannot compile.
   */
  compile(dialect: SchemaDialect, schema: object | boolean): ValidateFunction {
    let entry = this.instances.get(dialect);
    if (entry === undefined || entry.compiles >= this.recycleAfter) {
      entry = { ajv: create(dialect, this.validateFormats), compiles: 0 };
      this.instances.set(dialect, entry);
    }
    entry.compiles++;
    return entry.ajv.compile(schema);
  }
}
