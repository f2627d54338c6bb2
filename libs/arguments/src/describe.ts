/**
 * Schema → words and examples for error messages: "integer >= 1 and <= 100", and a value that
 * satisfies the schema (its `examples`, `default`, `const`, first `enum` value, or a sample built
 * from its type and bounds).
 */
import { isPlainObject, type JsonObject } from './json';
import { defaultOf, resolveLocalRef } from './schema-walk';

const MAX_EXPECTED = 240;
const MAX_EXAMPLE = 240;

const FORMAT_SAMPLES: Record<string, string> = {
  'date-time': '2024-01-31T09:30:00Z',
  date: '2024-01-31',
  time: '09:30:00Z',
  duration: 'P1D',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  uri: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  iri: 'https://example.com/',
  'iri-reference': 'https://example.com/',
  url: 'https://example.com/',
  uuid: '123e4567-e89b-12d3-a456-426614174000',
  'json-pointer': '/a/b',
  regex: '^[a-z]+$',
  path: 'docs/readme.md',
  byte: 'aGVsbG8=',
  int32: '1',
  int64: '1',
};

function typesOf(schema: JsonObject): string[] {
  const type = schema['type'];
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
  if (types.length === 0) {
    if (isPlainObject(schema['properties']) || Array.isArray(schema['required'])) return ['object'];
    if (schema['items'] !== undefined || Array.isArray(schema['prefixItems'])) return ['array'];
  }
  if (schema['nullable'] === true && !types.includes('null')) types.push('null');
  return types;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch {
    return String(value);
  }
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Resolves a local `$ref` (one level per call; cycles end at the depth limit). */
function deref(schema: JsonObject, root: JsonObject | undefined): JsonObject {
  const ref = schema['$ref'];
  if (typeof ref !== 'string' || root === undefined) return schema;
  return resolveLocalRef(root, ref) ?? schema;
}

function num(schema: JsonObject, key: string): number | undefined {
  return typeof schema[key] === 'number' ? (schema[key] as number) : undefined;
}

/** `>= 1 and <= 5` style numeric bounds. */
function bounds(schema: JsonObject): string[] {
  const parts: string[] = [];
  const [low, high, exLow, exHigh] = [num(schema, 'minimum'), num(schema, 'maximum'), num(schema, 'exclusiveMinimum'), num(schema, 'exclusiveMaximum')];
  if (exLow !== undefined) parts.push(`> ${exLow}`);
  else if (low !== undefined) parts.push(`>= ${low}`);
  if (exHigh !== undefined) parts.push(`< ${exHigh}`);
  else if (high !== undefined) parts.push(`<= ${high}`);
  return parts;
}

/** `1-80 characters`, `at least 1 item`, `at most 10 items`, or '' without bounds. */
function countRange(schema: JsonObject, minKey: string, maxKey: string, unit: string): string {
  const [min, max] = [num(schema, minKey), num(schema, maxKey)];
  const units = (n: number): string => `${unit}${n === 1 ? '' : 's'}`;
  if (min !== undefined && max !== undefined) return min === max ? `exactly ${min} ${units(min)}` : `${min}-${max} ${units(max)}`;
  if (min !== undefined && min > 0) return `at least ${min} ${units(min)}`;
  if (max !== undefined) return `at most ${max} ${units(max)}`;
  return '';
}

/** The expected type or shape of `schema`, in a few words. `root` resolves local `$ref`s. */
export function describeSchema(schema: unknown, root?: JsonObject, depth = 0): string {
  return cut(describe(schema, root, depth), MAX_EXPECTED);
}

function describe(input: unknown, root: JsonObject | undefined, depth: number): string {
  if (input === true || (isPlainObject(input) && Object.keys(input).length === 0)) return 'any value';
  if (input === false) return 'nothing (no value is allowed here)';
  if (!isPlainObject(input)) return 'any value';
  const schema = deref(input, root);
  if (depth > 3) return typesOf(schema).join(' or ') || 'a value';
  if (Object.hasOwn(schema, 'const')) return `exactly ${json(schema['const'])}`;
  const enumValues = schema['enum'];
  if (Array.isArray(enumValues)) {
    const shown = enumValues.slice(0, 12).map(json).join(', ');
    return `one of ${shown}${enumValues.length > 12 ? `, … (${enumValues.length} values)` : ''}`;
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) return branches.slice(0, 4).map((b) => describe(b, root, depth + 1)).join(' | ');
  }
  const types = typesOf(schema);
  if (types.length === 0) {
    const allOf = schema['allOf'];
    if (Array.isArray(allOf) && allOf.length > 0) return allOf.slice(0, 3).map((b) => describe(b, root, depth + 1)).join(' and ');
    return 'any value';
  }
  return types.map((t) => describeType(t, schema, root, depth)).join(' or ');
}

function describeType(type: string, schema: JsonObject, root: JsonObject | undefined, depth: number): string {
  switch (type) {
    case 'string': {
      const length = countRange(schema, 'minLength', 'maxLength', 'character');
      const parts = length ? [`of ${length}`] : [];
      if (typeof schema['format'] === 'string') parts.unshift(`in ${schema['format']} format`);
      if (typeof schema['pattern'] === 'string') parts.push(`matching /${schema['pattern']}/`);
      return ['string', ...parts].join(' ');
    }
    case 'number':
    case 'integer': {
      const parts = bounds(schema);
      if (typeof schema['multipleOf'] === 'number') parts.push(`multiple of ${schema['multipleOf']}`);
      return [type, parts.join(' and ')].filter(Boolean).join(' ');
    }
    case 'array': {
      const items = schema['items'];
      const of = isPlainObject(items) ? ` of ${describe(items, root, depth + 1)}` : '';
      const count = countRange(schema, 'minItems', 'maxItems', 'item');
      return `array${of}${count ? ` (${count})` : ''}`;
    }
    case 'object': {
      const props = isPlainObject(schema['properties']) ? Object.keys(schema['properties']) : [];
      const required = Array.isArray(schema['required']) ? schema['required'].filter((r): r is string => typeof r === 'string') : [];
      const parts: string[] = [];
      if (props.length) parts.push(`properties ${props.slice(0, 10).join(', ')}${props.length > 10 ? ', …' : ''}`);
      if (required.length) parts.push(`required ${required.slice(0, 10).join(', ')}`);
      if (schema['additionalProperties'] === false) parts.push('no others');
      return parts.length ? `object (${parts.join('; ')})` : 'object';
    }
    default:
      return type;
  }
}

/** An example value of `schema` as JSON text, or '' when none can be made. */
export function exampleFor(schema: unknown, root?: JsonObject, nameHint?: string): string {
  for (const depth of [0, 2, 3]) {
    const value = example(schema, root, depth, nameHint);
    if (value === undefined) return '';
    const text = json(value);
    if (text.length <= MAX_EXAMPLE) return text;
  }
  return '';
}

/** A value satisfying `schema` (best effort: the common keywords are honoured). */
export function exampleValue(schema: unknown, root?: JsonObject, nameHint?: string): unknown {
  return example(schema, root, 0, nameHint);
}

function example(input: unknown, root: JsonObject | undefined, depth: number, nameHint: string | undefined): unknown {
  if (input === true || input === undefined) return 'value';
  if (!isPlainObject(input)) return undefined;
  const schema = deref(input, root);
  const examples = schema['examples'];
  if (Array.isArray(examples) && examples.length > 0) return examples[0];
  if (examples !== undefined && !Array.isArray(examples)) return examples;
  const given = defaultOf(schema);
  if (given !== undefined && given.value !== null) return given.value;
  if (Object.hasOwn(schema, 'const')) return schema['const'];
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return schema['enum'][0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const branch = branches.find((b) => !(isPlainObject(b) && b['type'] === 'null')) ?? branches[0];
    if (branch !== undefined && (depth < 5 || key !== 'allOf')) return example(branch, root, depth + 1, nameHint);
  }
  const type = typesOf(schema).find((t) => t !== 'null') ?? (typesOf(schema).includes('null') ? 'null' : 'string');
  switch (type) {
    case 'string':
      return sampleString(schema, nameHint);
    case 'integer':
    case 'number':
      return sampleNumber(schema, type);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      if (depth > 4) return [];
      const item = example(schema['items'] === undefined ? true : schema['items'], root, depth + 1, nameHint);
      const min = typeof schema['minItems'] === 'number' ? Math.min(schema['minItems'], 3) : 1;
      return item === undefined ? [] : Array.from({ length: Math.max(1, min) }, () => item);
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      if (depth > 4) return out;
      const props = isPlainObject(schema['properties']) ? schema['properties'] : {};
      const required = Array.isArray(schema['required']) ? schema['required'].filter((r): r is string => typeof r === 'string') : [];
      // Required properties, or the first one when none is required, so the shape shows.
      const names = required.length ? required.slice(0, 8) : Object.keys(props).slice(0, 1);
      for (const name of names) {
        const value = example(props[name] ?? true, root, depth + 1, name);
        if (value !== undefined) out[name] = value;
      }
      return out;
    }
    default:
      return undefined;
  }
}

function sampleString(schema: JsonObject, nameHint: string | undefined): string {
  const format = schema['format'];
  let text = typeof format === 'string' && FORMAT_SAMPLES[format] !== undefined ? FORMAT_SAMPLES[format] : nameHint && /(path|file|dir|folder)/i.test(nameHint) ? 'docs/readme.md' : 'text';
  const min = typeof schema['minLength'] === 'number' ? schema['minLength'] : 0;
  const max = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : Infinity;
  if (text.length < min) text = text.padEnd(Math.min(min, 200), 'x');
  if (text.length > max) text = 'x'.repeat(Math.max(0, max));
  return text;
}

function sampleNumber(schema: JsonObject, type: 'integer' | 'number'): number {
  const step = type === 'integer' ? 1 : 0.5;
  const [exLow, exHigh] = [num(schema, 'exclusiveMinimum'), num(schema, 'exclusiveMaximum')];
  let low = num(schema, 'minimum') ?? (exLow !== undefined ? exLow + step : undefined);
  const high = num(schema, 'maximum') ?? (exHigh !== undefined ? exHigh - step : undefined);
  if (low === undefined) low = high !== undefined ? Math.min(1, high) : 1;
  let value = type === 'integer' ? Math.ceil(low) : low;
  const multiple = num(schema, 'multipleOf');
  if (multiple !== undefined && multiple > 0) value = Math.ceil(value / multiple) * multiple;
  return value;
}
