/** The text category: text_stats, text_transform, text_regex_extract, text_replace, text_diff. */
import type { ToolDefinition } from '@toolhub/adapter-sdk';
import { ToolHubError } from '@toolhub/contracts';
import { matchAll, replaceMatches, type RegexMatch } from '@toolhub/linear-regex';
import { z } from 'zod';

import { defineTool, textResult } from '../define';
import { intOption } from '../options-util';
import { TRANSFORMS, transform } from './case';
import { diffLines, splitLines, unifiedDiff } from './diff';
import { compileRegex, REGEX_FLAGS_PATTERN } from './regex';
import { countSegments, makeSegmenter } from './segments';

/** Options of {@link createTextTools}. */
export interface TextToolsOptions {
  /** Longest text text_stats, text_transform and text_diff accept, in characters. @default 1000000 */
  maxInputChars?: number;
  /** Longest text the regex tools (text_regex_extract, text_replace) accept, in characters. @default 100000 */
  maxRegexInputChars?: number;
  /** Most matches text_regex_extract may return. @default 1000 */
  maxMatches?: number;
  /** Most changed lines text_diff works through before giving up. @default 2000 */
  maxDiffEdits?: number;
}

/** Default values of {@link TextToolsOptions}. */
export const TEXT_TOOLS_DEFAULTS = { maxInputChars: 1_000_000, maxRegexInputChars: 100_000, maxMatches: 1000, maxDiffEdits: 2000 } as const;

/** Fills in defaults. @throws LocalToolsError invalid_options */
export function withTextDefaults(options: TextToolsOptions = {}): Required<TextToolsOptions> {
  return {
    maxInputChars: intOption('maxInputChars', options.maxInputChars, TEXT_TOOLS_DEFAULTS.maxInputChars),
    maxRegexInputChars: intOption('maxRegexInputChars', options.maxRegexInputChars, TEXT_TOOLS_DEFAULTS.maxRegexInputChars),
    maxMatches: intOption('maxMatches', options.maxMatches, TEXT_TOOLS_DEFAULTS.maxMatches),
    maxDiffEdits: intOption('maxDiffEdits', options.maxDiffEdits, TEXT_TOOLS_DEFAULTS.maxDiffEdits),
  };
}

const READ_ONLY = { readOnly: true, destructive: false, idempotent: true, openWorld: false } as const;
const locale = z.string().min(2).max(35).optional().describe('BCP 47 locale such as "en", "tr" or "zh"; default: the server\'s.');

function segmenter(localeTag: string | undefined, granularity: 'grapheme' | 'word' | 'sentence'): Intl.Segmenter {
  try {
    return makeSegmenter(localeTag, granularity);
  } catch {
    throw ToolHubError.invalidArgument(`locale ${JSON.stringify(localeTag)} is not a valid BCP 47 language tag.`, [
      { field: '/locale', message: 'invalid locale', expected: 'a BCP 47 tag', example: '"en"' },
    ]);
  }
}

function count<T>(items: Iterable<T>, keep: (item: T) => boolean = () => true): number {
  let n = 0;
  for (const item of items) if (keep(item)) n++;
  return n;
}

function statsTool(o: Required<TextToolsOptions>): ToolDefinition {
  return defineTool({
    name: 'text_stats',
    path: 'text',
    description:
      'Count the characters, words, sentences, lines, paragraphs and UTF-8 bytes of a text. Returns the counts, Unicode-aware: an emoji or accented letter is one character, and Chinese or Japanese words are found without spaces. ' +
      'Use it to check length limits or measure a document. Do not use it to change text (text_transform) or find patterns (text_regex_extract). ' +
      `Texts up to ${o.maxInputChars} characters.`,
    input: z.strictObject({
      text: z.string().max(o.maxInputChars).describe('The text to measure.'),
      locale,
    }),
    outputDescription: 'One line of counts; structured: {characters, codePoints, bytes, words, sentences, lines, paragraphs}.',
    examples: [{ description: 'Count a short text', arguments: { text: 'Héllo wörld! 👋🏽\nBye.' }, result: '19 characters, 3 words, 3 sentences, 2 lines, 1 paragraph, 28 bytes (UTF-8)' }],
    annotations: READ_ONLY,
    tags: ['text', 'count', 'words', 'characters', 'length', 'statistics'],
    async run(args) {
      const { text } = args;
      const lines = text === '' ? 0 : text.split(/\r\n|\r|\n/).length - (/(\r\n|\r|\n)$/.test(text) ? 1 : 0);
      const stats = {
        characters: countSegments(text, segmenter(args.locale, 'grapheme')),
        codePoints: count(text),
        bytes: Buffer.byteLength(text, 'utf8'),
        words: countSegments(text, segmenter(args.locale, 'word'), (s) => s.isWordLike === true),
        sentences: countSegments(text, segmenter(args.locale, 'sentence'), (s) => s.segment.trim() !== ''),
        lines,
        paragraphs: text.split(/\r?\n[ \t]*\r?\n/).filter((p) => p.trim() !== '').length,
      };
      const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
      const summary = [
        plural(stats.characters, 'character'),
        plural(stats.words, 'word'),
        plural(stats.sentences, 'sentence'),
        plural(stats.lines, 'line'),
        plural(stats.paragraphs, 'paragraph'),
        `${stats.bytes} bytes (UTF-8)`,
      ].join(', ');
      return textResult(summary, stats);
    },
  });
}

function transformTool(o: Required<TextToolsOptions>): ToolDefinition {
  return defineTool({
    name: 'text_transform',
    path: 'text',
    description:
      'Change the case or shape of a text: upper, lower, title, sentence case; snake_case, kebab-case, camelCase, PascalCase, CONSTANT_CASE identifiers; a URL slug (accents removed); trim; or collapse runs of whitespace. ' +
      'Unicode-aware (splits camelCase humps, keeps non-Latin letters). Returns the transformed text. ' +
      `Do not use it to search and replace (text_replace) or count (text_stats). Texts up to ${o.maxInputChars} characters.`,
    input: z.strictObject({
      text: z.string().max(o.maxInputChars).describe('The text to transform.'),
      to: z.enum(TRANSFORMS).describe('The conversion to apply.'),
      locale,
    }),
    outputDescription: 'The transformed text; structured: {result, to}.',
    examples: [{ description: 'An identifier to snake_case', arguments: { text: 'parseHTTPResponse v2', to: 'snake' }, result: 'parse_http_response_v2' }],
    annotations: READ_ONLY,
    tags: ['text', 'case', 'uppercase', 'lowercase', 'snake_case', 'camelcase', 'slug', 'trim'],
    async run(args) {
      let result: string;
      try {
        result = transform(args.text, args.to, args.locale);
      } catch (err) {
        if (!(err instanceof RangeError)) throw err;
        throw ToolHubError.invalidArgument(`locale ${JSON.stringify(args.locale)} is not a valid BCP 47 language tag.`, [
          { field: '/locale', message: 'invalid locale', expected: 'a BCP 47 tag', example: '"en"' },
        ]);
      }
      return textResult(result, { result, to: args.to });
    },
  });
}

const pattern = z.string().min(1).max(1000).describe('A regular expression in RE2 syntax (JavaScript syntax without look-around or back-references), without slashes, e.g. "\\\\d{4}-\\\\d{2}-\\\\d{2}".');
const flags = z.string().regex(REGEX_FLAGS_PATTERN).default('').describe('Regex flags from "imsu": i ignore case, m multi-line ^$, s dot matches newlines, u Unicode. "g" is implied.');

function regexExtractTool(o: Required<TextToolsOptions>): ToolDefinition {
  return defineTool({
    name: 'text_regex_extract',
    path: 'text',
    description:
      'Find every match of a regular expression in a text. Returns the matches (or one capture group of each) with their positions. ' +
      'Use it to pull emails, dates, IDs or numbers out of text. Do not use it to change text (text_replace) or on huge inputs. ' +
      `Text up to ${o.maxRegexInputChars} characters, at most ${o.maxMatches} matches. Patterns use RE2 syntax and run in linear time: no look-around or back-references.`,
    input: z.strictObject({
      text: z.string().max(o.maxRegexInputChars).describe('The text to search.'),
      pattern,
      flags,
      group: z.union([z.number().int().min(0).max(99), z.string().regex(/^[A-Za-z_$][\w$]*$/)]).optional().describe('Return only this capture group: its number or name. Default: the whole match.'),
      maxMatches: z.number().int().min(1).max(o.maxMatches).default(Math.min(100, o.maxMatches)).describe(`Stop after this many matches (at most ${o.maxMatches}).`),
    }),
    outputDescription: 'A count line, then one JSON string per match; structured: {count, truncated, matches[{match, index, groups, named?}]}.',
    examples: [
      {
        description: 'Pull e-mail addresses out of a text',
        arguments: { text: 'Write to ada@example.com or lin@example.org.', pattern: '[\\w.+-]+@[\\w-]+\\.\\w+' },
        result: '2 matches:\n"ada@example.com"\n"lin@example.org"',
      },
    ],
    annotations: READ_ONLY,
    tags: ['text', 'regex', 'extract', 'find', 'match', 'search', 'grep'],
    async run(args) {
      const re = compileRegex(args.pattern, args.flags);
      const matches: RegexMatch[] = [];
      let truncated = false;
      for (const m of matchAll(re, args.text)) {
        if (matches.length >= args.maxMatches) {
          truncated = true;
          break;
        }
        matches.push(m);
      }
      const pick = (e: RegexMatch): string | null => {
        if (args.group === undefined) return e.match;
        if (typeof args.group === 'number') return args.group === 0 ? e.match : (e.groups[args.group - 1] ?? null);
        return e.named?.[args.group] ?? null;
      };
      if (args.group !== undefined && matches.length > 0) {
        const first = matches[0] as RegexMatch;
        const exists = typeof args.group === 'number' ? args.group <= first.groups.length : first.named !== undefined && args.group in first.named;
        if (!exists) {
          const available = typeof args.group === 'number' ? `the pattern has ${first.groups.length} groups` : `named groups: ${Object.keys(first.named ?? {}).join(', ') || 'none'}`;
          throw ToolHubError.invalidArgument(`group ${JSON.stringify(args.group)} does not exist in the pattern (${available}).`, [
            { field: '/group', message: 'no such group', expected: 'a group number or name of the pattern', example: '1' },
          ]);
        }
      }
      const lines = [`${matches.length}${truncated ? '+' : ''} match${matches.length === 1 ? '' : 'es'}${matches.length > 0 ? ':' : '.'}`, ...matches.map((e) => JSON.stringify(pick(e)))];
      if (truncated) lines.push(`[Stopped at ${matches.length} matches; raise maxMatches (up to ${o.maxMatches}) or narrow the pattern.]`);
      return textResult(lines.join('\n'), { count: matches.length, truncated, matches });
    },
  });
}

function replaceTool(o: Required<TextToolsOptions>): ToolDefinition {
  return defineTool({
    name: 'text_replace',
    path: 'text',
    description:
      'Replace text: a literal string (default) or a regular expression with $1 / $<name> references in the replacement; every occurrence or only the first. ' +
      'Returns the new text and how many replacements were made. Use it to edit text before file_write. Do not use it just to find matches (text_regex_extract). ' +
      `Text up to ${o.maxRegexInputChars} characters; regex mode uses RE2 syntax (linear time; no look-around or back-references).`,
    input: z.strictObject({
      text: z.string().max(o.maxRegexInputChars).describe('The text to change.'),
      find: z.string().min(1).max(1000).describe('What to look for: literal text, or a regular expression when regex is true.'),
      replacement: z.string().max(10_000).describe('The replacement. With regex, $1, $<name> and $& refer to the match; literal mode inserts it as is.'),
      regex: z.boolean().default(false).describe('Treat find as a regular expression (RE2 syntax: JavaScript syntax without look-around or back-references).'),
      flags: flags.describe('Regex flags from "imsu" (regex mode only).'),
      all: z.boolean().default(true).describe('Replace every occurrence; false replaces only the first.'),
    }),
    outputDescription: 'The new text; structured: {text, replacements}.',
    examples: [{ description: 'Reformat dates with a regex', arguments: { text: 'Due 2025-03-30.', find: '(\\d{4})-(\\d{2})-(\\d{2})', replacement: '$3/$2/$1', regex: true }, result: 'Due 30/03/2025.' }],
    annotations: READ_ONLY,
    tags: ['text', 'replace', 'substitute', 'regex', 'edit', 'sed'],
    async run(args) {
      let result: string;
      let replacements: number;
      if (args.regex) {
        ({ text: result, replacements } = replaceMatches(compileRegex(args.find, args.flags, '/find'), args.text, args.replacement, args.all));
      } else {
        const parts = args.text.split(args.find);
        replacements = args.all ? parts.length - 1 : Math.min(1, parts.length - 1);
        // A function replacer inserts the replacement literally ($ signs included).
        result = args.all ? parts.join(args.replacement) : args.text.replace(args.find, () => args.replacement);
      }
      return textResult(result, { text: result, replacements });
    },
  });
}

function diffTool(o: Required<TextToolsOptions>): ToolDefinition {
  return defineTool({
    name: 'text_diff',
    path: 'text',
    description:
      'Compare two texts line by line. Returns a unified diff (like git diff): lines starting with - were removed, + added, with context lines around each change. ' +
      'Use it to show what changed between two versions of a file or answer. Do not use it for character-level changes inside one line or for binary data. ' +
      `Texts up to ${o.maxInputChars} characters each; gives up beyond ${o.maxDiffEdits} changed lines.`,
    input: z.strictObject({
      before: z.string().max(o.maxInputChars).describe('The original text.'),
      after: z.string().max(o.maxInputChars).describe('The changed text.'),
      context: z.number().int().min(0).max(20).default(3).describe('Unchanged lines shown around each change.'),
      fromLabel: z.string().max(200).default('before').describe('Name of the original in the --- header.'),
      toLabel: z.string().max(200).default('after').describe('Name of the changed text in the +++ header.'),
    }),
    outputDescription: 'A unified diff, or "(no differences)"; structured: {diff, identical, added, removed, hunks}.',
    examples: [{ description: 'One changed line', arguments: { before: 'a\nb\nc\n', after: 'a\nB\nc\n', context: 1 }, result: '--- before\n+++ after\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n' }],
    annotations: READ_ONLY,
    tags: ['text', 'diff', 'compare', 'changes', 'patch'],
    async run(args) {
      const ops = diffLines(splitLines(args.before), splitLines(args.after), o.maxDiffEdits);
      if (ops === undefined) {
        throw ToolHubError.invalidArgument(`The texts differ in more than ${o.maxDiffEdits} lines, which is more than text_diff works through; compare smaller sections.`, [
          { field: '/after', message: 'too many differences', expected: `at most ${o.maxDiffEdits} changed lines`, example: '' },
        ]);
      }
      const added = ops.filter((op) => op.kind === '+').length;
      const removed = ops.filter((op) => op.kind === '-').length;
      const { text, hunks } = unifiedDiff(ops, args.fromLabel, args.toLabel, args.context);
      return textResult(text === '' ? '(no differences)' : text, { diff: text, identical: text === '', added, removed, hunks });
    },
  });
}

/** The text tools. @throws LocalToolsError invalid_options */
export function createTextTools(options: TextToolsOptions = {}): ToolDefinition[] {
  const o = withTextDefaults(options);
  return [statsTool(o), transformTool(o), regexExtractTool(o), replaceTool(o), diffTool(o)];
}
