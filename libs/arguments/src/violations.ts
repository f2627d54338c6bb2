/**
 * Ajv errors → FieldViolations an LLM can act on: a JSON pointer to the field, what is wrong with
 * the value it sent, the expected type or shape, and an example of a valid value.
 */
import type { FieldViolation } from '@toolhub/contracts';
import type { ErrorObject } from 'ajv';

import { correctableTo, suggestionFor } from './closest';
import { describeSchema, exampleFor, exampleValue } from './describe';
import { childPointer, displayPointer, isPlainObject, jsonTypeOf, type JsonObject, preview } from './json';

type Violation = FieldViolation;

function got(value: unknown): string {
  const type = jsonTypeOf(value);
  return type === 'string' || type === 'null' ? `got ${preview(value)}` : `got ${type} ${preview(value)}`;
}

function lastToken(pointer: string): string | undefined {
  const i = pointer.lastIndexOf('/');
  return i < 0 ? undefined : pointer.slice(i + 1).replace(/~1/g, '/').replace(/~0/g, '~');
}

function allowedNames(schema: unknown): string[] {
  return isPlainObject(schema) && isPlainObject(schema['properties']) ? Object.keys(schema['properties']) : [];
}

/**
 * Which errors to show: Ajv reports every failed branch of an `anyOf`/`oneOf` plus the combinator
 * itself. One alternative besides `null` (an optional value) → show that branch's own errors; more
 * → show the combinator with its alternatives. `if`'s "must match then" adds nothing to the
 * `then` errors it summarises.
 */
function selectErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const hidden = new Set<ErrorObject>();
  for (const error of errors) {
    if (error.keyword === 'if') hidden.add(error);
    if (error.keyword !== 'anyOf' && error.keyword !== 'oneOf') continue;
    const branches = isPlainObject(error.parentSchema) ? error.parentSchema[error.keyword] : undefined;
    if (!Array.isArray(branches) || (error.keyword === 'oneOf' && (error.params as { passingSchemas?: unknown }).passingSchemas)) continue;
    const nonNull = branches.map((b, i) => ({ b, i })).filter(({ b }) => !(isPlainObject(b) && b['type'] === 'null'));
    const prefix = `${error.schemaPath}/`;
    const keep = nonNull.length === 1 && error.data !== null ? `${prefix}${nonNull[0]!.i}/` : undefined;
    for (const other of errors) {
      if (other === error || !other.schemaPath.startsWith(prefix) || !other.instancePath.startsWith(error.instancePath)) continue;
      if (keep === undefined || !other.schemaPath.startsWith(keep)) hidden.add(other);
    }
    if (keep !== undefined) hidden.add(error);
  }
  return errors.filter((e) => !hidden.has(e));
}

/** One violation per distinct problem, in the order Ajv found them. */
export function toViolations(errors: readonly ErrorObject[], root: JsonObject | undefined): Violation[] {
  const out: Violation[] = [];
  const seen = new Set<string>();
  for (const error of selectErrors(errors)) {
    const v = toViolation(error, root);
    if (v === undefined) continue;
    const key = `${v.field}\u0000${v.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(v);
  }
  return out;
}

function toViolation(error: ErrorObject, root: JsonObject | undefined): Violation | undefined {
  const field = displayPointer(error.instancePath);
  const schema = error.parentSchema;
  const params = error.params as Record<string, unknown>;
  const name = lastToken(error.instancePath);
  const expected = (): string => describeSchema(schema, root);
  const example = (): string => exampleFor(schema, root, name);
  switch (error.keyword) {
    case 'required': {
      const missing = String(params['missingProperty']);
      const props = isPlainObject(schema) && isPlainObject(schema['properties']) ? schema['properties'] : {};
      const propSchema = props[missing];
      return {
        field: displayPointer(childPointer(error.instancePath, missing)),
        message: `missing required property "${missing}"`,
        expected: propSchema === undefined ? 'any value' : describeSchema(propSchema, root),
        example: exampleFor(propSchema ?? true, root, missing),
      };
    }
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const extra = String(params['additionalProperty'] ?? params['unevaluatedProperty']);
      const allowed = allowedNames(schema);
      const suggestion = suggestionFor(extra, allowed);
      const props = isPlainObject(schema) && isPlainObject(schema['properties']) ? schema['properties'] : {};
      return {
        field: displayPointer(childPointer(error.instancePath, extra)),
        message:
          `unknown property "${extra}"` +
          (suggestion ? `; did you mean "${suggestion}"?` : '') +
          (allowed.length ? ` Allowed: ${allowed.slice(0, 20).join(', ')}${allowed.length > 20 ? ', …' : ''}.` : ' No properties are allowed here.'),
        expected: allowed.length ? `only the properties ${allowed.slice(0, 20).join(', ')}` : 'no properties',
        example: suggestion ? preview({ [suggestion]: exampleValue(props[suggestion] ?? true, root, suggestion) }, 240) : '',
      };
    }
    case 'type':
      return { field, message: `must be ${String(params['type']).split(',').join(' or ')}, ${got(error.data)}`, expected: expected(), example: example() };
    case 'enum':
    case 'const': {
      const allowed = error.keyword === 'enum' ? ((params['allowedValues'] as unknown[] | undefined) ?? []) : [params['allowedValue']];
      const near = typeof error.data === 'string' ? correctableTo(error.data, allowed.filter((a): a is string => typeof a === 'string')) : undefined;
      const hint = near?.kind === 'ambiguous' ? ` (close to ${near.candidates.map((c) => JSON.stringify(c)).join(' and ')}: say which)` : '';
      const list = allowed.slice(0, 20).map((a) => preview(a, 40)).join(', ') + (allowed.length > 20 ? ', …' : '');
      return { field, message: `must be ${allowed.length === 1 ? list : `one of ${list}`}, ${got(error.data)}${hint}`, expected: expected(), example: example() };
    }
    case 'anyOf':
    case 'oneOf': {
      const branches = isPlainObject(schema) && Array.isArray(schema[error.keyword]) ? (schema[error.keyword] as unknown[]) : [];
      const passing = (params['passingSchemas'] as unknown) ?? undefined;
      const message = passing
        ? `matches more than one of the ${branches.length} alternatives; it must match exactly one`
        : `matches none of the ${branches.length} alternatives, ${got(error.data)}`;
      return { field, message, expected: expected(), example: example() };
    }
    case 'false schema':
      return { field, message: 'no value is allowed here; remove it', expected: 'nothing', example: '' };
    case 'format':
      return { field, message: `must be a string in ${String(params['format'])} format, ${got(error.data)}`, expected: expected(), example: example() };
    default:
      return { field, message: `${error.message ?? `fails "${error.keyword}"`}, ${got(error.data)}`, expected: expected(), example: example() };
  }
}
