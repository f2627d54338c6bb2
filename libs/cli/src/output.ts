/**
 * What a command prints: results on stdout (a table, tool output, or with `--json` exactly one
 * JSON document), notes and errors on stderr, so `toolhub run ... > out.txt` keeps only the result.
 */
import { jsonDocument } from './format';
import type { CliIo } from './io';
import { type Column, renderTable } from './table';

/** The output of one command. */
export class Output {
  constructor(
    readonly io: CliIo,
    /** `--json` was given. */
    readonly json: boolean,
  ) {}

  /** Lines to stdout. */
  line(...lines: string[]): void {
    for (const l of lines) this.io.stdout.write(`${l}\n`);
  }

  /** Lines to stderr (notes, hints, errors). */
  note(...lines: string[]): void {
    for (const l of lines) this.io.stderr.write(`${l}\n`);
  }

  /** The one JSON document of `--json`, to stdout. */
  document(value: unknown): void {
    this.io.stdout.write(jsonDocument(value));
  }

  /** An aligned table to stdout, cut to the terminal width when there is one. */
  table(columns: readonly Column[], rows: readonly (readonly string[])[]): void {
    this.io.stdout.write(renderTable(columns, rows, this.io.columns));
  }

  /** Width to wrap prose at. */
  get width(): number {
    return Math.min(this.io.columns ?? 100, 100);
  }
}
