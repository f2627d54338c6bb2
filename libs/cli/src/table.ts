/**
 * Plain aligned tables for people: upper-case headers, columns two spaces apart, no borders (so
 * `grep`, `awk` and `cut` still work on them). Only the widest flexible column is cut with "…",
 * and only when a terminal width is known.
 */

/** How one column is laid out. */
export interface Column {
  header: string;
  /** @default 'left' */
  align?: 'left' | 'right';
  /** This column may be cut to fit the terminal width. @default false */
  flex?: boolean;
}

const GAP = '  ';
const MIN_FLEX_WIDTH = 12;

function width(text: string): number {
  return [...text].length;
}

function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, Math.max(1, max - 1)).join('')}…`;
}

function pad(text: string, w: number, align: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, w - width(text)));
  return align === 'right' ? fill + text : text + fill;
}

/**
 * Renders `rows` under `columns` as lines ending in "\n". Cells are flattened to one line.
 * @param maxWidth the terminal width; undefined never cuts.
 */
export function renderTable(columns: readonly Column[], rows: readonly (readonly string[])[], maxWidth?: number): string {
  const cells = rows.map((r) => columns.map((_, i) => (r[i] ?? '').replace(/\s+/g, ' ').trim()));
  const widths = columns.map((c, i) => Math.max(width(c.header), ...cells.map((r) => width(r[i]!))));
  if (maxWidth !== undefined) {
    const total = widths.reduce((a, b) => a + b, 0) + GAP.length * (columns.length - 1);
    const flex = columns.findIndex((c) => c.flex);
    if (total > maxWidth && flex >= 0) widths[flex] = Math.max(MIN_FLEX_WIDTH, widths[flex]! - (total - maxWidth));
  }
  const line = (values: readonly string[]) =>
    columns
      .map((c, i) => {
        const last = i === columns.length - 1;
        const text = cut(values[i]!, widths[i]!);
        // No trailing spaces after the last column.
        return last && c.align !== 'right' ? text : pad(text, widths[i]!, c.align ?? 'left');
      })
      .join(GAP)
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].map((l) => `${l}\n`).join('');
}
