/**
 * Walking JSON Schemas without trusting them: size guards, dialect sniffing, local `$ref`
 * resolution, and the one preprocessing step applied to the copy that is compiled.
 */
import { SchemaCompileError } from './errors';
import { isPlainObject, type JsonObject, parsePointer } from './json';
import type { SchemaDialect } from './options';

/**
 * Where a `default` moved by {@link holdBackDefaults} is kept. A symbol key, so Ajv (which walks
 * string keys only) does not see it, while examples can still use it.
 */
export const HELD_DEFAULT = Symbol('toolhub.heldDefault');

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'] as const;
const SCHEMA_ONE = ['additionalProperties', 'additionalItems', 'items', 'contains', 'not', 'if', 'then', 'else', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'contentSchema'] as const;
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'] as const;

/** Calls `fn` on each direct subschema of `schema` (objects only; boolean schemas are skipped). */
export function forEachSubschema(schema: JsonObject, fn: (sub: JsonObject) => void): void {
  for (const key of SCHEMA_MAPS) {
    const map = schema[key];
    if (isPlainObject(map)) for (const sub of Object.values(map)) if (isPlainObject(sub)) fn(sub);
  }
  for (const key of SCHEMA_ONE) {
    const sub = schema[key];
    if (isPlainObject(sub)) fn(sub);
  }
  for (const key of SCHEMA_LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) for (const sub of list) if (isPlainObject(sub)) fn(sub);
  }
}

/** Size limits checked before a schema is compiled. */
export interface SchemaLimits {
  maxSchemaBytes: number;
  maxSchemaNodes: number;
  maxSchemaDepth: number;
}

/**
 * Checks the size of a schema and returns a private deep copy of it (the caller may mutate theirs;
 * the compiled copy must not change under Ajv). Iterative, so a cyclic or absurdly deep object
 * cannot hang or blow the stack.
 * @throws SchemaCompileError `schema_too_deep`, `schema_too_large` or `schema_invalid`.
 */
export function guardedCopy(schema: JsonObject, limits: SchemaLimits): JsonObject {
  let nodes = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value: schema, depth: 1 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > limits.maxSchemaDepth) {
      throw new SchemaCompileError('schema_too_deep', `the schema nests deeper than ${limits.maxSchemaDepth} levels (or is cyclic)`);
    }
    if (++nodes > limits.maxSchemaNodes) {
      throw new SchemaCompileError('schema_too_large', `the schema has more than ${limits.maxSchemaNodes} objects and arrays`);
    }
    for (const child of Array.isArray(value) ? value : Object.values(value)) stack.push({ value: child, depth: depth + 1 });
  }
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch (err) {
    throw new SchemaCompileError('schema_invalid', `the schema is not JSON: ${(err as Error).message}`, { cause: err });
  }
  if (text.length > limits.maxSchemaBytes) {
    throw new SchemaCompileError('schema_too_large', `the schema is ${text.length} bytes of JSON, over the limit of ${limits.maxSchemaBytes}`);
  }
  return JSON.parse(text) as JsonObject;
}

const KEYWORDS_2020 = ['prefixItems', '$defs', '$dynamicRef', '$dynamicAnchor', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems'];

/**
 * The dialect named by `$schema`, or undefined when it names none we know (draft-04 and older are
 * compiled as draft-07 on a best-effort basis by the caller).
 */
export function dialectOf(schemaUri: unknown): SchemaDialect | undefined {
  if (typeof schemaUri !== 'string') return undefined;
  if (schemaUri.includes('2020-12')) return '2020-12';
  if (schemaUri.includes('2019-09')) return '2019-09';
  if (/draft-0[67]/.test(schemaUri)) return 'draft-07';
  return undefined;
}

/** True when the schema uses keywords that exist only in 2019-09/2020-12. */
export function looksLike2020(schema: JsonObject): boolean {
  const stack: JsonObject[] = [schema];
  let visited = 0;
  while (stack.length > 0 && visited++ < 5000) {
    const node = stack.pop()!;
    if (KEYWORDS_2020.some((k) => Object.hasOwn(node, k))) return true;
    forEachSubschema(node, (sub) => stack.push(sub));
  }
  return false;
}

/** Resolves a local `$ref` (`#/definitions/x`, `#/$defs/x`) against the root schema. */
export function resolveLocalRef(root: JsonObject, ref: string): JsonObject | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  for (const token of parsePointer(pointer)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as JsonObject)[token];
  }
  return isPlainObject(node) ? node : undefined;
}

/**
 * Moves `default` out of Ajv's sight where filling it in would not be a safe repair:
 * - on required properties: the caller must choose the value; a default there is a schema mistake
 *   and filling it would hide a missing argument (think `path` defaulting to `.`);
 * - `default: null`: inserting an explicit null tells the tool nothing it would not assume, and
 *   costs a reported fix per field (pydantic emits it for every optional field).
 * Returns whether any default remains for Ajv to fill.
 */
export function holdBackDefaults(schema: JsonObject): boolean {
  let remaining = false;
  const stack: JsonObject[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const properties = node['properties'];
    if (isPlainObject(properties)) {
      const required = Array.isArray(node['required']) ? (node['required'] as unknown[]) : [];
      for (const [name, sub] of Object.entries(properties)) {
        if (!isPlainObject(sub) || !Object.hasOwn(sub, 'default')) continue;
        if (required.includes(name) || sub['default'] === null) {
          (sub as Record<symbol, unknown>)[HELD_DEFAULT] = sub['default'];
          delete sub['default'];
        }
      }
    }
    // Children are processed with their parent, before they are popped: what is left is kept.
    if (Object.hasOwn(node, 'default')) remaining = true;
    forEachSubschema(node, (sub) => stack.push(sub));
  }
  return remaining;
}

/** The `default` of a schema node, including one held back by {@link holdBackDefaults}. */
export function defaultOf(schema: JsonObject): { value: unknown } | undefined {
  if (Object.hasOwn(schema, 'default')) return { value: schema['default'] };
  const held = schema as Record<symbol, unknown>;
  if (HELD_DEFAULT in held) return { value: held[HELD_DEFAULT] };
  return undefined;
}

/**
 * Rewrites draft-04 leftovers that later dialects reject outright, where the meaning is certain:
 * `exclusiveMinimum: true` + `minimum: n` → `exclusiveMinimum: n` (and the same for maximum);
 * `exclusiveMinimum: false` is dropped. zod-to-json-schema's OpenAPI 3 target still emits these.
 */
export function modernise(schema: JsonObject): void {
  const stack: JsonObject[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (const [exclusive, inclusive] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      const flag = node[exclusive];
      if (typeof flag !== 'boolean') continue;
      delete node[exclusive];
      if (flag && typeof node[inclusive] === 'number') {
        node[exclusive] = node[inclusive];
        delete node[inclusive];
      }
    }
    forEachSubschema(node, (sub) => stack.push(sub));
  }
}
