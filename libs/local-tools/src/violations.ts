/**
 * Maps zod issues to ToolHub field violations: a JSON pointer, a message, what was expected and a
 * valid example, so that an LLM can repair its call in one step.
 */
import type { JsonSchema } from '@toolhub/adapter-sdk';
import { closestMatches, type FieldViolation, ToolHubError } from '@toolhub/contracts';
import type { z } from 'zod';

import { describeSchema, exampleFromSchema, isObject, schemaAt } from './schema';

type Example = { arguments: Record<string, unknown> };

/** RFC 6901 JSON pointer of an issue path: `["items", 0, "a/b"]` → `/items/0/a~1b`. */
export function toJsonPointer(path: ReadonlyArray<PropertyKey>): string {
  return path.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** The value at `path` in the first example that has one, as JSON text. */
function exampleFromExamples(examples: readonly Example[], path: ReadonlyArray<PropertyKey>): string {
  for (const example of examples) {
    let node: unknown = example.arguments;
    for (const segment of path) {
      if (Array.isArray(node) && typeof segment === 'number') node = node[segment];
      else if (isObject(node) && typeof segment === 'string') node = node[segment];
      else node = undefined;
    }
    if (node !== undefined) return JSON.stringify(node);
  }
  return '';
}

function received(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'an array';
  if (typeof input === 'string') return `the string ${JSON.stringify(input.length > 40 ? `${input.slice(0, 40)}…` : input)}`;
  if (typeof input === 'object') return 'an object';
  return `${typeof input} ${String(input)}`;
}

/** One zod issue → one or more violations (one per unknown key). */
function toViolations(issue: z.core.$ZodIssue, schema: JsonSchema, examples: readonly Example[]): FieldViolation[] {
  const path = issue.path as PropertyKey[];
  if (issue.code === 'unrecognized_keys') {
    const node = schemaAt(schema, path);
    const known = isObject(node?.['properties']) ? Object.keys(node['properties']) : [];
    return issue.keys.map((key) => {
      const near = closestMatches(key, known, 1)[0];
      return {
        field: toJsonPointer([...path, key]),
        message: `unknown property ${JSON.stringify(key)}${near ? `; did you mean ${JSON.stringify(near)}?` : ''}`,
        expected: known.length > 0 ? `only these properties: ${known.join(', ')}` : 'no extra properties',
        example: near ? exampleFromExamples(examples, [...path, near]) || exampleFromSchema(schemaAt(schema, [...path, near])) : '',
      };
    });
  }
  if (issue.code === 'invalid_union') {
    // When the value has the right type for one branch, that branch's issues say what is wrong inside it.
    const branch = issue.errors.find((errs) => errs.length > 0 && !errs.some((e) => e.path.length === 0 && e.code === 'invalid_type'));
    if (branch) return branch.flatMap((e) => toViolations({ ...e, path: [...path, ...e.path] } as z.core.$ZodIssue, schema, examples));
  }
  const node = schemaAt(schema, path);
  const expected = describeSchema(node);
  const missing = issue.code === 'invalid_type' && issue.input === undefined;
  let message: string;
  if (missing) message = 'is required';
  else if (issue.code === 'invalid_type') message = `must be ${expected || issue.expected}, got ${received(issue.input)}`;
  else if (issue.code === 'invalid_union' || issue.code === 'invalid_value') message = `must be ${expected}, got ${received(issue.input)}`;
  else message = issue.message;
  return [
    {
      field: toJsonPointer(path),
      message,
      expected,
      example: exampleFromExamples(examples, path) || exampleFromSchema(node),
    },
  ];
}

/** Field violations for every zod issue, in order. */
export function issuesToViolations(issues: readonly z.core.$ZodIssue[], schema: JsonSchema, examples: readonly Example[] = []): FieldViolation[] {
  return issues.flatMap((issue) => toViolations(issue, schema, examples));
}

/**
 * The invalid_argument error for a failed parse: one sentence per field, each with the expected
 * shape and an example, then the fields themselves as structured violations.
 */
export function invalidArguments(toolName: string, issues: readonly z.core.$ZodIssue[], schema: JsonSchema, examples: readonly Example[] = []): ToolHubError {
  const violations = issuesToViolations(issues, schema, examples);
  const parts = violations.map((v) => {
    const hints = [v.expected && `expected ${v.expected}`, v.example && `e.g. ${v.example}`].filter(Boolean).join(', ');
    return `${v.field || '/'} ${v.message}${hints ? ` (${hints})` : ''}`;
  });
  return ToolHubError.invalidArgument(`Invalid arguments for ${toolName}: ${parts.join('; ')}. Fix these fields and call ${toolName} again.`, violations);
}
