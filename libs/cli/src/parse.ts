/**
 * Parsing of command-line values: tool references (`local file_read` or `local:file_read`), tool
 * arguments (`--args JSON|@file|-` and `--arg key=value` / `key:=json`), and whole numbers.
 */
import { parseToolId } from '@toolhub/contracts';
import { InvalidArgumentError } from 'commander';
import { readFile } from 'node:fs/promises';

import { CliUsageError } from './errors';

/** A tool by provider and name. */
export interface ToolRef {
  provider: string;
  name: string;
}

/**
 * `<provider> <name>` or `<provider:name>` (then `second` is undefined).
 * @throws CliUsageError when the name is missing or both forms are mixed.
 */
export function parseToolRef(first: string, second: string | undefined, command: string): ToolRef {
  const id = parseToolId(first);
  if (id && second === undefined) return id;
  if (!id && second !== undefined && !first.includes(':')) return { provider: first, name: second };
  if (id) throw new CliUsageError(`give the tool either as <provider> <name> or as <provider:name>, not both ("${first}" "${second}").`, `toolhub ${command} ${first}`);
  throw new CliUsageError(`${command} needs a tool: <provider> <name> or <provider:name>; got only ${JSON.stringify(first)}.`, `toolhub ${command} local math_calculate, or find one with toolhub search <words>`);
}

/** A commander option parser for whole numbers ≥ `min`. */
export function wholeNumber(min: number): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) throw new InvalidArgumentError(`expected a whole number ≥ ${min}.`);
    return n;
  };
}

/** A commander option parser for one of `choices`. */
export function oneOf<T extends string>(choices: readonly T[]): (value: string) => T {
  return (value: string) => {
    const v = value.trim().toLowerCase().replace(/-/g, '_');
    if (!(choices as readonly string[]).includes(v)) throw new InvalidArgumentError(`expected one of ${choices.join(', ')}.`);
    return v as T;
  };
}

/** Collects a repeatable option into an array. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

type Args = Record<string, unknown>;

function asObject(text: string, source: string): Args {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CliUsageError(`${source} is not valid JSON: ${(err as Error).message}.`, `--args '{"expression":"2+2"}' or --arg expression='2+2'`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CliUsageError(`${source} must be a JSON object of the tool's arguments; got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}.`, `--args '{"expression":"2+2"}'`);
  }
  return value as Args;
}

/**
 * The tool's arguments: `--args` (JSON text, `@file` or `-` for stdin) as the base, then each
 * `--arg`: `key=value` sets a string, `key:=json` a JSON value (number, boolean, object...).
 * @throws CliUsageError for JSON that does not parse or is not an object, and `--arg` without `=`.
 */
export async function parseToolArguments(args: string | undefined, pairs: readonly string[], readStdin: () => Promise<string>): Promise<Args> {
  let base: Args = {};
  if (args !== undefined) {
    if (args === '-') base = asObject(await readStdin(), '--args - (standard input)');
    else if (args.startsWith('@')) {
      let text: string;
      try {
        text = await readFile(args.slice(1), 'utf8');
      } catch (err) {
        throw new CliUsageError(`cannot read ${args.slice(1)} for --args: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`);
      }
      base = asObject(text, `--args ${args}`);
    } else base = asObject(args, '--args');
  }
  for (const pair of pairs) {
    const m = /^([^=:]+?)(:?)=([\s\S]*)$/.exec(pair);
    if (!m) throw new CliUsageError(`--arg ${JSON.stringify(pair)} must be key=value (a string) or key:=json (any JSON value).`, '--arg message=hello --arg count:=3');
    const [, key, raw, value] = m as unknown as [string, string, string, string];
    if (raw === ':') {
      try {
        base[key.trim()] = JSON.parse(value);
      } catch (err) {
        throw new CliUsageError(`--arg ${key}:= needs a JSON value: ${(err as Error).message}.`, `--arg ${key}:=3, --arg ${key}:=true, --arg ${key}:='["a","b"]'`);
      }
    } else base[key.trim()] = value;
  }
  return base;
}
