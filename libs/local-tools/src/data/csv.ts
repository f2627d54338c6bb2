/**
 * RFC 4180 CSV: writing with minimal quoting (a field is quoted when it holds the delimiter, a
 * quote, CR or LF; quotes are doubled) and a strict-but-forgiving reader that reports the line of
 * every problem.
 */

/** How {@link toCsv} writes. */
export interface CsvWriteOptions {
  delimiter: string;
  /** Column order; undefined = union of keys in first-seen order. */
  columns?: readonly string[];
  header: boolean;
  lineEnding: '\r\n' | '\n';
  /** Prefix cells starting with = + - @ TAB CR with `'` so spreadsheets do not run them as formulas. */
  escapeFormulas: boolean;
}

/** The text of one cell: strings as they are, null/undefined empty, objects and arrays as JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}

/** Quotes a field when RFC 4180 requires it. */
export function quoteField(text: string, delimiter: string): string {
  return text.includes(delimiter) || /["\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Union of the keys of `rows`, in the order they are first seen. */
export function columnsOf(rows: ReadonlyArray<Record<string, unknown>>): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) seen.add(key);
  return [...seen];
}

/** Writes rows of objects as CSV. Returns the text (ending with a line break) and the columns used. */
export function toCsv(rows: ReadonlyArray<Record<string, unknown>>, options: CsvWriteOptions): { csv: string; columns: string[] } {
  const columns = options.columns ? [...options.columns] : columnsOf(rows);
  const cell = (text: string): string => {
    const safe = options.escapeFormulas && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
    return quoteField(safe, options.delimiter);
  };
  const lines: string[] = [];
  if (options.header) lines.push(columns.map(cell).join(options.delimiter));
  for (const row of rows) lines.push(columns.map((c) => cell(cellText(Object.hasOwn(row, c) ? row[c] : undefined))).join(options.delimiter));
  return { csv: lines.length > 0 ? lines.join(options.lineEnding) + options.lineEnding : '', columns };
}

/** A CSV syntax problem at a 1-based line. */
export class CsvSyntaxError extends Error {
  override readonly name = 'CsvSyntaxError';
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** One record of a CSV text and the line it starts on. */
export interface CsvRecord {
  fields: string[];
  line: number;
}

/**
 * Parses CSV text into records, skipping blank lines. Accepts CRLF, LF or CR line breaks and a
 * leading byte-order mark; a quote inside an unquoted field is kept as text.
 * @throws CsvSyntaxError for an unclosed quoted field or text right after a closing quote.
 */
export function parseCsv(input: string, delimiter: string): CsvRecord[] {
  const text = input.startsWith('\uFEFF') ? input.slice(1) : input;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let inQuotes = false;
  let line = 1;
  let recordLine = 1;
  let quoteLine = 1;

  const endRecord = (): void => {
    fields.push(field);
    const blank = fields.length === 1 && field === '' && !quoted;
    if (!blank) records.push({ fields, line: recordLine });
    fields = [];
    field = '';
    quoted = false;
  };

  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
          continue;
        }
        inQuotes = false;
        const next = text[i + 1];
        if (next !== undefined && next !== delimiter && next !== '\r' && next !== '\n') {
          throw new CsvSyntaxError(line, `line ${line}: unexpected ${JSON.stringify(next)} after the closing quote of a field; inside a quoted field write a quote as "".`);
        }
        continue;
      }
      if (c === '\n' || (c === '\r' && text[i + 1] !== '\n')) line++;
      field += c;
      continue;
    }
    if (c === '"' && field === '' && !quoted) {
      inQuotes = true;
      quoted = true;
      quoteLine = line;
      continue;
    }
    if (c === delimiter) {
      fields.push(field);
      field = '';
      quoted = false;
      continue;
    }
    if (c === '\r' || c === '\n') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRecord();
      line++;
      recordLine = line;
      continue;
    }
    field += c;
  }
  if (inQuotes) throw new CsvSyntaxError(quoteLine, `line ${quoteLine}: a quoted field is never closed; add the closing quote (").`);
  if (field !== '' || quoted || fields.length > 0) endRecord();
  return records;
}

/** Header names made unique and non-empty: '' → `column_3`, a repeated `name` → `name_2`. */
export function uniqueHeader(names: readonly string[]): string[] {
  const used = new Set<string>();
  return names.map((raw, i) => {
    const base = raw.trim() === '' ? `column_${i + 1}` : raw;
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}_${n}`;
    used.add(name);
    return name;
  });
}

/** `"42"` → 42, `"true"` → true, `""` → null; anything else (including `"007"`) stays text. */
export function inferValue(text: string): string | number | boolean | null {
  if (text === '') return null;
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(text)) {
    const n = Number(text);
    // Integers beyond 2^53 would silently change; keep them as text.
    if (Number.isFinite(n) && (!/^-?\d+$/.test(text) || Number.isSafeInteger(n))) return n;
  }
  return text;
}
