/**
 * Turns a zod object schema into the small, LLM-friendly JSON Schema a tool publishes, and reads
 * that schema back to explain violations ("expected integer >= 1").
 */
import type { JsonSchema } from '@toolhub/adapter-sdk';
import { z } from 'zod';

import { LocalToolsError } from './errors';

/** Keys zod emits that carry no information for a caller and only cost tokens. */
function isNoise(key: string, value: unknown): boolean {
  if (key === '$schema') return true;
  // z.number().int() adds the safe-integer bounds; every JSON number a caller sends is inside them.
  if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) return true;
  if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) return true;
  // z.record(z.string(), …) adds this; JSON object keys are always strings.
  if (key === 'propertyNames' && isObject(value) && value['type'] === 'string' && Object.keys(value).length === 1) return true;
  // `additionalProperties: {}` (anything goes) is the JSON Schema default.
  if (key === 'additionalProperties' && isObject(value) && Object.keys(value).length === 0) return true;
  return false;
}

function clean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(clean);
  if (!isObject(node)) return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (isNoise(key, value)) continue;
    out[key] = clean(value);
  }
  return out;
}

/**
 * The input JSON Schema (draft 2020-12, without `$schema`) of a zod object schema, describing what
 * a caller sends (so fields with defaults are optional).
 * @throws LocalToolsError invalid_definition when a top-level property has no description.
 */
export function toInputSchema(schema: z.ZodObject, toolName: string): JsonSchema {
  const json = clean(z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' })) as JsonSchema;
  if (json['type'] !== 'object') {
    throw new LocalToolsError('invalid_definition', `Tool ${toolName}: the input schema must be a zod object.`);
  }
  const properties = isObject(json['properties']) ? json['properties'] : {};
  const undocumented = Object.entries(properties)
    .filter(([, p]) => !isObject(p) || typeof p['description'] !== 'string' || p['description'].trim() === '')
    .map(([name]) => name);
  if (undocumented.length > 0) {
    throw new LocalToolsError(
      'invalid_definition',
      `Tool ${toolName}: every input property needs a description for the LLM; add .describe() to ${undocumented.join(', ')}.`,
    );
  }
  return json;
}

/** True for plain JSON objects. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The sub-schema at `path` (object keys and array indexes), looking through anyOf/oneOf. */
export function schemaAt(root: JsonSchema, path: ReadonlyArray<PropertyKey>): JsonSchema | undefined {
  let node: JsonSchema | undefined = root;
  for (const segment of path) {
    if (node === undefined) return undefined;
    node = childOf(node, segment);
  }
  return node;
}

function childOf(node: JsonSchema, segment: PropertyKey): JsonSchema | undefined {
  const properties = node['properties'];
  if (typeof segment === 'string' && isObject(properties) && isObject(properties[segment])) return properties[segment];
  const items = node['items'];
  if (typeof segment === 'number' && isObject(items)) return items;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = node[key];
    if (!Array.isArray(options)) continue;
    for (const option of options) {
      if (!isObject(option)) continue;
      const found = childOf(option, segment);
      if (found) return found;
    }
  }
  return undefined;
}

/** A short human description of what a schema accepts: `integer >= 1`, `one of "a", "b"`. */
export function describeSchema(node: JsonSchema | undefined): string {
  if (node === undefined) return '';
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = node[key];
    if (Array.isArray(options)) return options.filter(isObject).map(describeSchema).join(' or ');
  }
  if (Array.isArray(node['enum'])) return `one of ${node['enum'].map((v) => JSON.stringify(v)).join(', ')}`;
  if ('const' in node) return JSON.stringify(node['const']);
  const type = typeof node['type'] === 'string' ? node['type'] : 'value';
  const bounds: string[] = [];
  const add = (key: string, text: string): void => {
    if (typeof node[key] === 'number') bounds.push(`${text} ${node[key]}`);
  };
  if (type === 'string') {
    if (node['minLength'] === 1 && node['maxLength'] === undefined && node['pattern'] === undefined) return 'non-empty string';
    add('minLength', 'at least');
    add('maxLength', 'at most');
    const unit = bounds.length > 0 ? ' characters' : '';
    const pattern = typeof node['pattern'] === 'string' ? ` matching /${node['pattern']}/` : '';
    return `string${bounds.length > 0 ? ` (${bounds.join(', ')}${unit})` : ''}${pattern}`;
  }
  if (type === 'integer' || type === 'number') {
    add('minimum', '>=');
    add('exclusiveMinimum', '>');
    add('maximum', '<=');
    add('exclusiveMaximum', '<');
    return [type, ...bounds].join(' ');
  }
  if (type === 'array') {
    add('minItems', 'at least');
    add('maxItems', 'at most');
    const items = isObject(node['items']) ? describeSchema(node['items']) : '';
    return `array${items ? ` of ${items}` : ''}${bounds.length > 0 ? ` (${bounds.join(', ')} items)` : ''}`;
  }
  return type;
}

/** A valid example value for a schema, as JSON text ('' when none can be guessed). */
export function exampleFromSchema(node: JsonSchema | undefined): string {
  if (node === undefined) return '';
  if ('default' in node) return JSON.stringify(node['default']);
  if (Array.isArray(node['examples']) && node['examples'].length > 0) return JSON.stringify(node['examples'][0]);
  if (Array.isArray(node['enum']) && node['enum'].length > 0) return JSON.stringify(node['enum'][0]);
  if ('const' in node) return JSON.stringify(node['const']);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = node[key];
    if (Array.isArray(options) && isObject(options[0])) return exampleFromSchema(options[0]);
  }
  switch (node['type']) {
    case 'string':
      return '"text"';
    case 'integer':
      return String(typeof node['minimum'] === 'number' ? node['minimum'] : 1);
    case 'number':
      return String(typeof node['minimum'] === 'number' ? node['minimum'] : 1.5);
    case 'boolean':
      return 'true';
    case 'array':
      return '[]';
    case 'object':
      return '{}';
    default:
      return '';
  }
}
