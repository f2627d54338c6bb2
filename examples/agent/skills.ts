/**
 * What the scripted model can understand: each skill recognises one kind of task, says what to
 * search for, which search hit fits, which values of the task can fill a tool's parameters, and
 * how to phrase the answer from the tool's output. No skill knows a tool name or an answer: the
 * tool comes from the search hits, the parameter names from tool_info, the answer from tool_run.
 */
import type { SearchHitLine } from './meta-results';

/** A value found in the task, used to fill a required parameter whose schema accepts its kind. */
export type TaskValue = { kind: 'string'; value: string } | { kind: 'number'; value: number } | { kind: 'array'; value: unknown[]; text: string };

/** How to do one task. */
export interface TaskPlan {
  /** 1-5 keyword queries for tool_search. */
  queries: string[];
  /** Does this hit do what the task needs? The first hit that does is used. */
  fits(hit: SearchHitLine): boolean;
  /** Values for the tool's required parameters, in order. */
  values: TaskValue[];
  /** The final answer, from the tool's output. */
  answer(output: string): string;
}

/** Recognises one kind of task. */
export interface Skill {
  name: string;
  plan(task: string): TaskPlan | undefined;
}

const text = (hit: SearchHitLine) => `${hit.name} ${hit.summary}`;
const firstLine = (s: string) => s.split('\n')[0]!.trim();
const NUMBER = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`;
const plainNumber = (s: string) => s.replace(/,/g, '');
const doesMath = (hit: SearchHitLine) => /calculat|arithmetic|math/i.test(text(hit));

/** "What is 17% of 2,340?" */
export const percentOf: Skill = {
  name: 'percent-of',
  plan(task) {
    const m = new RegExp(`(${NUMBER})\\s*%\\s*of\\s*(${NUMBER})`, 'i').exec(task);
    if (!m) return undefined;
    const [, pct, base] = m as unknown as [string, string, string];
    return {
      queries: ['calculate math expression', 'percentage of a number'],
      fits: doesMath,
      values: [{ kind: 'string', value: `${plainNumber(pct)} / 100 * ${plainNumber(base)}` }],
      answer: (out) => `${pct}% of ${base} is ${firstLine(out)}.`,
    };
  },
};

/** "What is (3 + 4) * 12?", "Calculate 2^10". */
export const arithmetic: Skill = {
  name: 'arithmetic',
  plan(task) {
    const m = /(?:what is|what's|calculate|compute)\s+([-+*/^().,\d\s]+?)\s*[?.!]?\s*$/i.exec(task);
    if (!m || !/\d\s*[-+*/^]\s*[\d(]/.test(m[1]!)) return undefined;
    const expression = m[1]!.trim().replace(/(\d),(?=\d{3}\b)/g, '$1');
    return {
      queries: ['calculate math expression'],
      fits: doesMath,
      values: [{ kind: 'string', value: expression }],
      answer: (out) => `${m[1]!.trim()} = ${firstLine(out)}`,
    };
  },
};

/** "Convert this JSON to CSV: [...]". */
export const jsonToCsv: Skill = {
  name: 'json-to-csv',
  plan(task) {
    if (!/\bjson\b[\s\S]*\bto\s+csv\b/i.test(task)) return undefined;
    const start = task.indexOf('[');
    const end = task.lastIndexOf(']');
    if (start < 0 || end <= start) return undefined;
    let records: unknown;
    try {
      records = JSON.parse(task.slice(start, end + 1));
    } catch {
      return undefined;
    }
    if (!Array.isArray(records)) return undefined;
    return {
      queries: ['convert json to csv'],
      fits: (hit) => /json_to_csv/.test(hit.name) || /\bjson\b.*\bto csv\b/i.test(hit.summary),
      values: [{ kind: 'array', value: records, text: task.slice(start, end + 1) }],
      answer: (out) => `Here is the CSV (${records.length} rows):\n${out.replace(/\r\n/g, '\n').trimEnd()}`,
    };
  },
};

/** "Echo 'hello from MCP'". */
export const echo: Skill = {
  name: 'echo',
  plan(task) {
    const m = /\becho\s+(?:back\s+)?['"“‘](.+?)['"”’]/i.exec(task);
    if (!m) return undefined;
    return {
      queries: ['echo a message'],
      fits: (hit) => /\becho/i.test(text(hit)),
      values: [{ kind: 'string', value: m[1]! }],
      answer: (out) => `The echo tool answered: ${firstLine(out)}`,
    };
  },
};

/** Every skill, most specific first. */
export const DEFAULT_SKILLS: readonly Skill[] = [percentOf, jsonToCsv, echo, arithmetic];
