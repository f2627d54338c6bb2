/**
 * OpenAPI schemas → the JSON Schema (2020-12) agents see, and short prose summaries of response
 * schemas. The parser has already replaced every `$ref`, except recursive ones: those are hoisted
 * into the tool schema's `$defs`, so the result is self-contained.
 */
import type { JsonSchema } from '@toolhub/adapter-sdk';

type Node = { [key: string]: unknown };

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** OpenAPI-only keywords that mean nothing to a JSON Schema validator (or to an LLM). */
const DROPPED = new Set(['discriminator', 'xml', 'externalDocs', 'nullable', 'example', '$schema', '$id', '$anchor', '$dynamicAnchor', '$comment']);
/** Keywords whose value is one sub-schema. */
const ONE = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'additionalItems', 'if', 'then', 'else'];
/** Keywords whose value is a list of sub-schemas. */
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Keywords whose value maps names to sub-schemas. */
const MAP = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];
const MAX_DEPTH = 48;

/** Where the recursive schemas of one tool schema are collected. */
export interface SchemaScope {
  /** `$defs` of the tool schema, by name. */
  readonly defs: Record<string, JsonSchema>;
  /** document ref → its name in `defs` */
  readonly pending: Map<string, string>;
}

/** An empty scope. */
export function newScope(): SchemaScope {
  return { defs: {}, pending: new Map() };
}

/** Converts schemas of one document, resolving leftover (recursive) refs against it. */
export class SchemaConverter {
  constructor(
    private readonly document: Node,
    /** Schema objects the parser substituted for a `$ref`, with the ref: gives names to summaries. */
    private readonly refNames: WeakMap<object, string> = new WeakMap(),
  ) {}

  /**
   * The JSON Schema of one OpenAPI schema. `direction` drops `readOnly` properties from requests
   * (the server sets them) and `writeOnly` ones from responses. Recursive schemas land in
   * `scope.defs`, which the caller puts at the root of the schema it builds (refs are `#/$defs/...`).
   */
  convert(schema: unknown, direction: 'request' | 'response', scope: SchemaScope = newScope()): JsonSchema {
    const out = this.walk(schema, direction, scope.defs, scope.pending, 0);
    return isNode(out) ? out : {};
  }

  private walk(schema: unknown, direction: 'request' | 'response', defs: Record<string, JsonSchema>, pending: Map<string, string>, depth: number): unknown {
    if (typeof schema === 'boolean') return schema;
    if (!isNode(schema) || depth > MAX_DEPTH) return {};
    if (typeof schema.$ref === 'string') return this.hoist(schema.$ref, direction, defs, pending, depth);
    const out: Node = {};
    for (const [key, value] of Object.entries(schema)) {
      if (DROPPED.has(key) || key.startsWith('x-')) continue;
      // Draft-04 style tuples (`items: [...]`) become 2020-12 `prefixItems`.
      if (key === 'items' && Array.isArray(value)) out.prefixItems = value.map((v) => this.walk(v, direction, defs, pending, depth + 1));
      else if (ONE.includes(key)) out[key] = this.walk(value, direction, defs, pending, depth + 1);
      else if (LIST.includes(key) && Array.isArray(value)) out[key] = value.map((v) => this.walk(v, direction, defs, pending, depth + 1));
      else if (MAP.includes(key) && isNode(value)) out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.walk(v, direction, defs, pending, depth + 1)]));
      else out[key] = value;
    }
    // OpenAPI 3.0 → JSON Schema: `nullable`, boolean `exclusiveMinimum`/`exclusiveMaximum`, `example`.
    if (schema.nullable === true) {
      if (typeof out.type === 'string') out.type = [out.type, 'null'];
      else if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
    }
    for (const [flag, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
      if (typeof schema[flag] !== 'boolean') continue;
      delete out[flag];
      if (schema[flag] === true && typeof schema[bound] === 'number') {
        out[flag] = schema[bound];
        delete out[bound];
      }
    }
    if (schema.example !== undefined && out.examples === undefined) out.examples = [schema.example];
    const hidden = direction === 'request' ? 'readOnly' : 'writeOnly';
    if (isNode(out.properties) && isNode(schema.properties)) {
      const drop = Object.entries(schema.properties).filter(([, p]) => isNode(p) && p[hidden] === true).map(([k]) => k);
      if (drop.length > 0) {
        out.properties = Object.fromEntries(Object.entries(out.properties).filter(([k]) => !drop.includes(k)));
        if (Array.isArray(out.required)) out.required = (out.required as unknown[]).filter((r) => !drop.includes(r as string));
      }
    }
    return out;
  }

  /** A recursive `$ref`: copied once into `$defs`, referenced as `#/$defs/<name>`. */
  private hoist(ref: string, direction: 'request' | 'response', defs: Record<string, JsonSchema>, pending: Map<string, string>, depth: number): unknown {
    const known = pending.get(ref);
    if (known !== undefined) return { $ref: `#/$defs/${known}` };
    const target = ref.startsWith('#/') ? this.pointer(ref) : undefined;
    if (target === undefined) return { description: `Not described here (unresolved reference ${ref}).` };
    const base = (ref.split('/').pop() ?? 'def').replace(/~1/g, '_').replace(/~0/g, '_').replace(/[^A-Za-z0-9_.-]/g, '_') || 'def';
    let key = base;
    const taken = new Set(pending.values());
    for (let n = 2; taken.has(key); n++) key = `${base}_${n}`;
    pending.set(ref, key);
    defs[key] = {};
    defs[key] = this.walk(target, direction, defs, pending, depth + 1) as JsonSchema;
    return { $ref: `#/$defs/${key}` };
  }

  private pointer(ref: string): unknown {
    let cur: unknown = this.document;
    for (const raw of ref.slice(2).split('/')) {
      const seg = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      cur = Array.isArray(cur) ? cur[Number(seg)] : isNode(cur) ? cur[seg] : undefined;
      if (cur === undefined) return undefined;
    }
    return cur;
  }

  /**
   * One line describing a (response) schema for the LLM, e.g.
   * `array of Pet {id: integer, name: string, tag?: string}`. Cut at `max` characters.
   */
  summarize(schema: unknown, max = 400): string {
    const text = this.describe(schema, 0, new Set());
    return text.length > max ? `${text.slice(0, max - 3)}...` : text;
  }

  private describe(schema: unknown, depth: number, seen: Set<object>): string {
    if (!isNode(schema)) return 'any value';
    if (typeof schema.$ref === 'string') {
      // A recursive schema kept as a ref: describe its target once, by name.
      const refName = (schema.$ref.split('/').pop() ?? 'object').replace(/~1/g, '/');
      const target = schema.$ref.startsWith('#/') ? this.pointer(schema.$ref) : undefined;
      if (!isNode(target) || seen.has(target) || depth >= 2) return refName;
      if (!this.refNames.has(target)) this.refNames.set(target, schema.$ref);
      return this.describe(target, depth, seen);
    }
    const name = this.refNames.get(schema)?.split('/').pop() ?? (typeof schema.title === 'string' ? schema.title : undefined);
    if (seen.has(schema)) return name ?? 'object';
    seen.add(schema);
    try {
      for (const k of ['oneOf', 'anyOf'] as const) {
        const list = schema[k];
        if (Array.isArray(list) && list.length > 0) return list.slice(0, 4).map((s) => this.describe(s, depth + 1, seen)).join(' | ') + (list.length > 4 ? ' | ...' : '');
      }
      if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
        const parts = schema.allOf.map((s) => this.describe(s, depth + 1, seen));
        return `${name ? `${name}: ` : ''}${parts.join(' & ')}`;
      }
      if (Array.isArray(schema.enum)) return `one of ${schema.enum.slice(0, 8).map((v) => JSON.stringify(v)).join(', ')}${schema.enum.length > 8 ? ', ...' : ''}`;
      const type = Array.isArray(schema.type) ? schema.type.join(' or ') : typeof schema.type === 'string' ? schema.type : schema.properties ? 'object' : schema.items ? 'array' : undefined;
      if (type === 'array') return `array of ${this.describe(schema.items, depth + 1, seen)}`;
      if (type === 'object' || isNode(schema.properties)) {
        const props = isNode(schema.properties) ? Object.entries(schema.properties) : [];
        if (props.length === 0) {
          const extra = isNode(schema.additionalProperties) ? `map of string to ${this.describe(schema.additionalProperties, depth + 1, seen)}` : 'object';
          return name ? `${name} (${extra})` : extra;
        }
        if (depth >= 2) return name ?? `object with ${props.map(([k]) => k).slice(0, 6).join(', ')}${props.length > 6 ? ', ...' : ''}`;
        const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
        const fields = props.slice(0, 12).map(([k, v]) => `${k}${required.has(k) ? '' : '?'}: ${this.describe(v, depth + 1, seen)}`);
        return `${name ? `${name} ` : ''}{${fields.join(', ')}${props.length > 12 ? ', ...' : ''}}`;
      }
      const base = type ?? 'any value';
      const withFormat = typeof schema.format === 'string' ? `${base} (${schema.format})` : base;
      return schema.nullable === true ? `${withFormat} or null` : withFormat;
    } finally {
      seen.delete(schema);
    }
  }
}
