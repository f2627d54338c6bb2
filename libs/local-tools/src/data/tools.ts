/** The data category: JSON ↔ CSV conversion. */
import type { ToolDefinition } from '@toolhub/adapter-sdk';
import { ToolHubError } from '@toolhub/contracts';
import { z } from 'zod';

import { defineTool, textResult } from '../define';
import { intOption } from '../options-util';
import { isObject } from '../schema';
import { CsvSyntaxError, inferValue, parseCsv, toCsv, uniqueHeader } from './csv';

/** Options of {@link createDataTools}. */
export interface DataToolsOptions {
  /** Longest JSON or CSV text accepted, in characters. @default 1048576 */
  maxInputChars?: number;
  /** Most rows converted in one call. @default 10000 */
  maxRows?: number;
}

/** Default values of {@link DataToolsOptions}. */
export const DATA_TOOLS_DEFAULTS = { maxInputChars: 1024 * 1024, maxRows: 10_000 } as const;

/** Fills in defaults. @throws LocalToolsError invalid_options for a limit that is not a positive integer. */
export function withDataDefaults(options: DataToolsOptions = {}): Required<DataToolsOptions> {
  return {
    maxInputChars: intOption('maxInputChars', options.maxInputChars, DATA_TOOLS_DEFAULTS.maxInputChars),
    maxRows: intOption('maxRows', options.maxRows, DATA_TOOLS_DEFAULTS.maxRows),
  };
}

const delimiter = z
  .string()
  .regex(/^[^"\r\n]$/)
  .default(',')
  .describe("Field separator, one character other than a quote or line break: ',' (default), ';', '\\t' or '|'.");

function tooManyRows(count: number, max: number, field: string): ToolHubError {
  return ToolHubError.invalidArgument(`${count} rows is more than the ${max} one call converts; split the data and convert it in parts.`, [
    { field, message: 'too many rows', expected: `at most ${max} rows`, example: '' },
  ]);
}

/**
 * Nesting deeper than this inside one row is refused: its cells are written with JSON.stringify,
 * which recurses and would overflow the stack at ~10,000 levels. No real table nests this deep.
 */
export const MAX_CELL_DEPTH = 100;

/** True when `value` nests objects/arrays more than `limit` levels deep (iterative: no recursion). */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/** Rows from `data`: an array of objects, or JSON text of one (a single object counts as one row). */
function rowsFrom(data: unknown, maxRows: number): Array<Record<string, unknown>> {
  let value = data;
  if (typeof data === 'string') {
    try {
      value = JSON.parse(data);
    } catch (err) {
      throw ToolHubError.invalidArgument(`data is not valid JSON text: ${err instanceof Error ? err.message : String(err)}. Pass an array of objects, or fix the JSON.`, [
        { field: '/data', message: 'invalid JSON', expected: 'a JSON array of objects', example: '[{"name":"Ada","age":36}]' },
      ]);
    }
  }
  if (isObject(value)) value = [value];
  if (!Array.isArray(value)) {
    throw ToolHubError.invalidArgument(`data must be an array of objects (one per row), got ${value === null ? 'null' : typeof value}.`, [
      { field: '/data', message: 'not an array of objects', expected: 'array of objects', example: '[{"name":"Ada","age":36}]' },
    ]);
  }
  if (value.length > maxRows) throw tooManyRows(value.length, maxRows, '/data');
  value.forEach((row, i) => {
    if (!isObject(row)) {
      const got = row === null ? 'null' : Array.isArray(row) ? 'an array' : typeof row;
      throw ToolHubError.invalidArgument(`row ${i} of data is ${got}; every row must be an object such as {"name":"Ada"}.`, [
        { field: `/data/${i}`, message: `is ${got}`, expected: 'object', example: '{"name":"Ada","age":36}' },
      ]);
    }
    if (nestedDeeperThan(row, MAX_CELL_DEPTH)) {
      throw ToolHubError.invalidArgument(`row ${i} of data nests objects or arrays more than ${MAX_CELL_DEPTH} levels deep; flatten it first (a cell holds its value as JSON text).`, [
        { field: `/data/${i}`, message: `nested more than ${MAX_CELL_DEPTH} levels`, expected: `objects nested at most ${MAX_CELL_DEPTH} levels`, example: '{"name":"Ada","langs":["en","fr"]}' },
      ]);
    }
  });
  return value as Array<Record<string, unknown>>;
}

function jsonToCsvTool(o: Required<DataToolsOptions>): ToolDefinition {
  return defineTool({
    name: 'data_json_to_csv',
    path: 'data',
    description:
      `Convert JSON records (an array of objects, or JSON text of one) to CSV. Returns the CSV text with RFC 4180 quoting. ` +
      `The header is the union of all keys in first-seen order unless you pass columns; nested objects and arrays are written as JSON, null as an empty cell. ` +
      `Use it to produce a table for a spreadsheet or a .csv file (save it with file_write). Do not use it for CSV → JSON (data_csv_to_json). ` +
      `At most ${o.maxRows} rows, ${o.maxInputChars} characters of JSON text and ${MAX_CELL_DEPTH} levels of nesting in a row.`,
    input: z.strictObject({
      data: z
        .union([z.array(z.record(z.string(), z.unknown())).max(o.maxRows), z.string().max(o.maxInputChars)])
        .describe('The rows: an array of objects, or JSON text of such an array.'),
      columns: z.array(z.string()).min(1).max(1000).optional().describe('Columns to write, in this order; other keys are dropped. Default: every key, first-seen order.'),
      delimiter,
      header: z.boolean().default(true).describe('Write a header line with the column names.'),
      lineEnding: z.enum(['crlf', 'lf']).default('crlf').describe("Line break: 'crlf' (RFC 4180, default) or 'lf'."),
      escapeFormulas: z.boolean().default(false).describe("Prefix cells starting with = + - @ with ' so spreadsheets show them as text, not formulas."),
    }),
    outputDescription: 'The CSV text; structured: {csv, columns, rowCount}.',
    examples: [
      {
        description: 'Two people to CSV, with LF line breaks',
        arguments: { data: [{ name: 'Ada', langs: ['en', 'fr'] }, { name: 'Lin, Yu', age: 41 }], lineEnding: 'lf' },
        result: 'name,langs,age\nAda,"[""en"",""fr""]",\n"Lin, Yu",,41\n',
      },
    ],
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    tags: ['data', 'csv', 'json', 'convert', 'table', 'export'],
    async run(args) {
      const rows = rowsFrom(args.data, o.maxRows);
      const { csv, columns } = toCsv(rows, {
        delimiter: args.delimiter,
        header: args.header,
        lineEnding: args.lineEnding === 'crlf' ? '\r\n' : '\n',
        escapeFormulas: args.escapeFormulas,
        ...(args.columns ? { columns: args.columns } : {}),
      });
      return textResult(csv, { csv, columns, rowCount: rows.length });
    },
  });
}

function csvToJsonTool(o: Required<DataToolsOptions>): ToolDefinition {
  return defineTool({
    name: 'data_csv_to_json',
    path: 'data',
    description:
      `Parse CSV text (RFC 4180: quoted fields, "" for a quote, line breaks inside quotes) into JSON. ` +
      `With a header line (default) returns an array of objects keyed by column name; without, an array of string arrays. ` +
      `Use it to read a table you got as text or from file_read. Do not use it for JSON → CSV (data_json_to_csv). ` +
      `Values stay strings unless inferTypes is true. At most ${o.maxRows} rows and ${o.maxInputChars} characters.`,
    input: z.strictObject({
      csv: z.string().max(o.maxInputChars).describe('The CSV text.'),
      delimiter,
      header: z.boolean().default(true).describe('The first line holds column names.'),
      inferTypes: z.boolean().default(false).describe('Turn "42" into 42, "true"/"false" into booleans and empty cells into null.'),
    }),
    outputDescription: 'JSON text, one row per line; structured: {rows, columns, rowCount, warnings}.',
    examples: [
      {
        description: 'A small table with a quoted comma, typed',
        arguments: { csv: 'name,age\n"Lin, Yu",41\n', inferTypes: true },
        result: '[\n{"name":"Lin, Yu","age":41}\n]',
      },
    ],
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    tags: ['data', 'csv', 'json', 'parse', 'table', 'import'],
    async run(args) {
      let records;
      try {
        records = parseCsv(args.csv, args.delimiter);
      } catch (err) {
        if (!(err instanceof CsvSyntaxError)) throw err;
        throw ToolHubError.invalidArgument(`csv is not valid CSV: ${err.message}`, [
          { field: '/csv', message: err.message, expected: 'RFC 4180 CSV text', example: '"name,age\\nAda,36\\n"' },
        ]);
      }
      const dataRecords = args.header ? records.slice(1) : records;
      if (dataRecords.length > o.maxRows) throw tooManyRows(dataRecords.length, o.maxRows, '/csv');
      const value = (text: string): unknown => (args.inferTypes ? inferValue(text) : text);
      const warnings: string[] = [];
      let rows: unknown[];
      let columns: string[] = [];
      if (args.header && records.length > 0) {
        columns = uniqueHeader((records[0] as { fields: string[] }).fields);
        rows = dataRecords.map(({ fields, line }) => {
          if (fields.length > columns.length) {
            throw ToolHubError.invalidArgument(
              `csv line ${line} has ${fields.length} fields but the header has ${columns.length}; quote fields that contain the delimiter ${JSON.stringify(args.delimiter)}, or check the delimiter.`,
              [{ field: '/csv', message: `line ${line}: too many fields`, expected: `${columns.length} fields per line`, example: '"name,age\\n\\"Lin, Yu\\",41\\n"' }],
            );
          }
          if (fields.length < columns.length && warnings.length < 10) warnings.push(`line ${line} has ${fields.length} of ${columns.length} fields; the missing ones are empty.`);
          return Object.fromEntries(columns.map((c, i) => [c, value(fields[i] ?? '')]));
        });
      } else {
        rows = dataRecords.map(({ fields }) => fields.map(value));
      }
      const text = rows.length === 0 ? '[]' : `[\n${rows.map((r) => JSON.stringify(r)).join(',\n')}\n]`;
      return textResult(text, { rows, columns, rowCount: rows.length, warnings });
    },
  });
}

/** The data tools: data_json_to_csv and data_csv_to_json. @throws LocalToolsError invalid_options */
export function createDataTools(options: DataToolsOptions = {}): ToolDefinition[] {
  const o = withDataDefaults(options);
  return [jsonToCsvTool(o), csvToJsonTool(o)];
}
