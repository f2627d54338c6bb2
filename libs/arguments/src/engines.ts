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
import { compileLinear } from '@toolhub/linear-regex';

import type { SchemaDialect } from './options';

type RegExpEngine = NonNullable<NonNullable<Options['code']>['regExp']>;

/**
 * JSON Schema `pattern`s run on RE2 (linear time, `@toolhub/linear-regex`): a schema comes from a
 * provider and the string from an agent, and together they must not be able to freeze the
 * dispatcher with a backtracking pattern. A pattern RE2 cannot run (look-around, back-references)
 * is not checked here; the provider that declared it still checks its own input.
 */
const UNCHECKED = { test: (): boolean => true };
const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    try {
      return compileLinear(pattern);
    } catch (err) {
      // Not even JavaScript reads it: the schema is invalid (reported as such by the validator).
      if (!isRegExp(pattern)) throw err;
      return UNCHECKED;
    }
  },
  { code: 'linearRegExp' },
);

/**
 * The `regex` format (a string that is a regular expression): JavaScript's parser decides, Unicode
 * first, then without `u` for sloppy schemas that write `[\w\_]`. Compiling never backtracks.
 */
function isRegExp(text: string): boolean {
  for (const flags of ['u', '']) {
    try {
      new RegExp(text, flags);
      return true;
    } catch {
      // try the next flags
    }
  }
  return false;
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
    code: { regExp: linearRegExp },
  };
  const ajv = dialect === '2020-12' ? new Ajv2020(options) : dialect === '2019-09' ? new Ajv2019(options) : new Ajv(options);
  addFormats(ajv);
  // Meta-schemas check `pattern` with the `regex` format.
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
    const entry = this.instance(dialect);
    entry.compiles++;
    return entry.ajv.compile(schema);
  }

  /** Creates the dialect's instance and compiles its meta-schema (Ajv does so lazily, on the first schema it checks). */
  warmUp(dialect: SchemaDialect): void {
    const { ajv } = this.instance(dialect);
    ajv.getSchema(ajv.defaultMeta() as string);
  }

  /** Whether the dialect's instance exists and has compiled its meta-schema. */
  isWarm(dialect: SchemaDialect): boolean {
    const ajv = this.instances.get(dialect)?.ajv;
    const meta = ajv?.defaultMeta();
    return ajv !== undefined && typeof meta === 'string' && ajv.schemas[meta]?.validate !== undefined;
  }

  private instance(dialect: SchemaDialect): { ajv: Ajv; compiles: number } {
    let entry = this.instances.get(dialect);
    if (entry === undefined || entry.compiles >= this.recycleAfter) {
      entry = { ajv: create(dialect, this.validateFormats), compiles: 0 };
      this.instances.set(dialect, entry);
    }
    return entry;
  }
}
