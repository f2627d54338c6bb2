/** Line diff (Myers' O(ND) algorithm) rendered as a unified diff. */

interface Op {
  kind: ' ' | '-' | '+';
  line: string;
}

/** Splits text into lines that keep their `\n`, so a missing final newline is a difference too. */
export function splitLines(text: string): string[] {
  return text === '' ? [] : text.split(/(?<=\n)/);
}

/** Edit script turning `a` into `b`, or undefined when more than `maxEdits` lines differ. */
export function diffLines(a: readonly string[], b: readonly string[], maxEdits: number): Op[] | undefined {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const A = a.slice(start, endA);
  const B = b.slice(start, endB);
  const n = A.length;
  const m = B.length;
  const offset = n + m + 1;
  const v = new Int32Array(2 * offset + 1);
  // trace[d] holds v for diagonals -d..d as it was before step d: O(D²) memory, not O((N+M)·D).
  const trace: Int32Array[] = [];
  let edits = -1;
  search: for (let d = 0; d <= n + m; d++) {
    if (d > maxEdits) return undefined;
    trace.push(v.slice(offset - d, offset + d + 1));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number)) ? (v[offset + k + 1] as number) : (v[offset + k - 1] as number) + 1;
      let y = x - k;
      while (x < n && y < m && A[x] === B[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        edits = d;
        break search;
      }
    }
  }
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = edits; d > 0; d--) {
    const snapshot = trace[d] as Int32Array;
    const at = (k: number): number => snapshot[k + d] as number;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: ' ', line: A[--x] as string });
      y--;
    }
    if (x === prevX) ops.push({ kind: '+', line: B[--y] as string });
    else ops.push({ kind: '-', line: A[--x] as string });
  }
  while (x > 0 && y > 0) {
    ops.push({ kind: ' ', line: A[--x] as string });
    y--;
  }
  ops.reverse();
  const same = (lines: readonly string[]): Op[] => lines.map((line) => ({ kind: ' ', line }));
  return [...same(a.slice(0, start)), ...ops, ...same(a.slice(endA))];
}

/** Renders an edit script as unified diff hunks with `context` lines around each change. */
export function unifiedDiff(ops: readonly Op[], fromLabel: string, toLabel: string, context: number): { text: string; hunks: number } {
  const changes = ops.flatMap((op, i) => (op.kind === ' ' ? [] : [i]));
  if (changes.length === 0) return { text: '', hunks: 0 };
  // Line numbers before each op, so a hunk header can be computed from any range.
  const aBefore: number[] = [];
  const bBefore: number[] = [];
  let aNo = 0;
  let bNo = 0;
  for (const op of ops) {
    aBefore.push(aNo);
    bBefore.push(bNo);
    if (op.kind !== '+') aNo++;
    if (op.kind !== '-') bNo++;
  }
  const out = [`--- ${fromLabel}`, `+++ ${toLabel}`];
  let hunks = 0;
  let i = 0;
  while (i < changes.length) {
    const first = changes[i] as number;
    let last = first;
    while (i + 1 < changes.length && (changes[i + 1] as number) - last <= 2 * context + 1) last = changes[++i] as number;
    i++;
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length, last + context + 1);
    const slice = ops.slice(from, to);
    const aCount = slice.filter((op) => op.kind !== '+').length;
    const bCount = slice.filter((op) => op.kind !== '-').length;
    const aStart = (aBefore[from] as number) + (aCount > 0 ? 1 : 0);
    const bStart = (bBefore[from] as number) + (bCount > 0 ? 1 : 0);
    out.push(`@@ -${aStart},${aCount} +${bStart},${bCount} @@`);
    for (const op of slice) {
      out.push(`${op.kind}${op.line.replace(/\r?\n$/, '')}`);
      if (!op.line.endsWith('\n')) out.push('\\ No newline at end of file');
    }
    hunks++;
  }
  return { text: `${out.join('\n')}\n`, hunks };
}
