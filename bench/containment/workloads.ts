/**
 * The calls of the containment benchmark: the heavy ones issue 10 names (a 1 MB text_stats, a
 * catastrophic-backtracking regex) plus relatives, and the light ones whose latency must not move.
 */

/** One heavy call: a tool and its arguments, sent with the benchmark's timeout_ms. */
export interface HeavyCase {
  kind: string;
  name: string;
  arguments: Record<string, unknown>;
  /** This case's timeout_ms instead of the benchmark's (a call meant to overrun its deadline). */
  timeoutMs?: number;
}

/** One light call kind; `target` says what it exercises. */
export interface LightKind {
  kind: string;
  target: string;
}

// Prose in several scripts, as a real document: ASCII mostly, accents, CJK and emoji (grapheme
// clusters), sentences and paragraphs, so every counter of text_stats does its full work.
const PARAGRAPH = [
  'The quick brown fox jumps over the lazy dog; Dr. Smith paid $3.50 for 2 coffees at 9 a.m. and left.',
  'Crème brûlée, naïve café, jalapeño — déjà vu à la carte. Ünïcödé wörds keep the segmenter honest!',
  '今天天气很好，我们去公园散步吧。東京の地下鉄は便利です。',
  'Family 👨‍👩‍👧‍👦, flags 🇯🇵🇫🇷, skin tones 👋🏽 and keycaps 1️⃣ are one character each? Yes.',
].join(' ');

/** About `bytes` UTF-8 bytes of multi-script prose, cut on a whole paragraph (stays under the byte count). */
export function proseOfBytes(bytes: number): string {
  const unit = `${PARAGRAPH}\n\n`;
  const unitBytes = Buffer.byteLength(unit, 'utf8');
  return unit.repeat(Math.floor(bytes / unitBytes));
}

/** Lines that share nothing, so a line diff must work through the most edits it allows. */
function distinctLines(count: number, tag: string): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) lines.push(`${tag}-${i.toString(36)}-${((i * 2654435761) >>> 0).toString(16)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The heavy calls, in the order the streams take them. `textBytes` sizes text_stats (issue 10: a
 * 1 MB call); `regexChars` the adversarial regex inputs (the regex tools accept 100,000 characters).
 */
export function heavyCases(textBytes: number, regexChars: number, shortTimeoutMs: number): HeavyCase[] {
  const as = `${'a'.repeat(regexChars - 1)}!`;
  const xs = 'x'.repeat(regexChars);
  const text = proseOfBytes(textBytes);
  return [
    { kind: 'text_stats 1 MB', name: 'text_stats', arguments: { text } },
    // The same call with a deadline shorter than its work: it must end at the deadline (worker ended,
    // replaced). shortTimeoutMs 0 leaves it out (no worker is ever ended).
    ...(shortTimeoutMs > 0 ? [{ kind: `text_stats 1 MB, ${shortTimeoutMs} ms`, name: 'text_stats', arguments: { text }, timeoutMs: shortTimeoutMs }] : []),
    { kind: 'regex (a|a)*$', name: 'text_regex_extract', arguments: { text: as, pattern: '(a|a)*$' } },
    { kind: 'regex (a+)+$', name: 'text_regex_extract', arguments: { text: as, pattern: '(a+)+$' } },
    { kind: 'replace (x+x+)+y', name: 'text_replace', arguments: { text: xs, find: '(x+x+)+y', replacement: 'z', regex: true } },
    // Two unrelated texts: past text_diff's bound of 2,000 changed lines, refused (not computed).
    { kind: 'text_diff 2 × 20k lines', name: 'text_diff', arguments: { before: distinctLines(20_000, 'b'), after: distinctLines(20_000, 'a') } },
  ];
}

/** The light calls: health checks and cheap runs, each on a different path through the adapter. */
export const LIGHT_KINDS: readonly LightKind[] = [
  { kind: 'health: dispatcher', target: 'grpc.health.v1 Check on the dispatcher API port (dispatcher event loop)' },
  { kind: 'health: adapter-local', target: "grpc.health.v1 Check on adapter-local's health port (the adapter's event loop)" },
  { kind: 'RunTool time_now', target: "runs on the adapter's event loop" },
  { kind: 'RunTool math_calculate', target: "runs on the calculator's own worker (not the tool pool)" },
  { kind: 'RunTool text_transform (small)', target: 'runs on the same worker pool as the heavy calls' },
];
