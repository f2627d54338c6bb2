/**
 * Parameter names in snake_case: agents see one naming style whatever the provider uses
 * (`oldText` → `old_text`, `sort-by` → `sort_by`), and every run maps the arguments back to the
 * provider's native names. Covers nested objects, arrays, combinators and local `$ref`s, so the
 * MCP and cloud adapters can share it. Collisions (`fooBar` and `foo_bar`) are found when the
 * mapping is built — at start-up — never at call time.
 */
import { ToolHubError, snakeCase } from '@toolhub/contracts';

import type { JsonSchema } from './types';

/**
 * The snake_case form of one parameter name, by the same rules as tool names (`getUserByID` →
 * `get_user_by_id`, `dry-run` → `dry_run`) but without the 64-character cut or the `t_` prefix:
 * JSON property names may start with a digit. Returns `native` unchanged when nothing usable is
 * left (a name in another script), so such names pass through as they are.
 */
export function toSnakeCase(native: string): string {
  return snakeCase(native) || native;
}

/** Symbols that tell parameters apart (`StartTime<`, `StartTime>`), spelled as words. */
const SYMBOL_WORDS: Record<string, string> = {
  '<': 'lt', '>': 'gt', '=': 'eq', '!': 'not', '+': 'plus', '@': 'at', '#': 'num', $: 'dollar', '&': 'and', '|': 'or', '~': 'tilde', '%': 'pct', '*': 'star', '^': 'caret', '?': 'q',
};

/**
 * {@link toSnakeCase} that keeps symbols as words (`StartTime<` → `start_time_lt`,
 * `$filter` → `dollar_filter`): the second try when plain snake_case names collide.
 */
export function toSnakeCaseWithSymbols(native: string): string {
  return toSnakeCase(native.replace(/[<>=!+@#$&|~%*^?]/g, (c) => ` ${SYMBOL_WORDS[c]} `));
}

export interface ParamNameOptions {
  /** Rename parameters to snake_case; `false` gives the identity mapping. @default true */
  normalize?: boolean;
  /** Names the schema's owner in error messages, e.g. `tool "everything_echo"`. @default 'the schema' */
  subject?: string;
}

/** One renamed parameter. `at` is where it sits, e.g. `edits[].old_text`. */
export interface ParamRename {
  readonly at: string;
  readonly native: string;
  readonly name: string;
}

/** A reversible mapping between the native and the snake_case parameter names of one schema. */
export interface ParamNameMap {
  /** The schema agents see: property names, `required` lists, `$ref`s and defaults in snake_case. */
  readonly schema: JsonSchema;
  /** Every renamed parameter, in schema order; empty when the names were snake_case already. */
  readonly renames: readonly ParamRename[];
  /** True when no name changes, so both directions return their input as is. */
  readonly identity: boolean;
  /** Arguments as an agent sent them → arguments with the provider's names. Unknown keys pass through. */
  toNative(args: Record<string, unknown>): Record<string, unknown>;
  /** Arguments with the provider's names → the snake_case form (for examples and defaults). */
  fromNative(args: Record<string, unknown>): Record<string, unknown>;
}

type Node = { [key: string]: unknown };

/** What one schema node says about object keys and array items (its branches have their own views). */
interface NodeView {
  /** native name → schemas of its value */
  props: Map<string, Node[]>;
  /** snake_case name → native name */
  bySnake: Map<string, string>;
  /** schemas of values under keys that are not listed (additionalProperties, patternProperties) */
  other: Node[];
  items: Node[];
  prefix: Node[][];
}

interface Collision {
  at: string;
  name: string;
  natives: string[];
}

/** Keywords whose value is one sub-schema. */
const SUB_SCHEMA_KEYS = ['items', 'additionalItems', 'additionalProperties', 'not', 'contains', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames'];
/** Keywords whose value is a map of sub-schemas not keyed by parameter names. */
const SUB_SCHEMA_MAP_KEYS = ['$defs', 'definitions', 'patternProperties'];
/** Branches that describe the same object as their parent, so share its parameter names. */
const MERGED_LIST_KEYS = ['allOf', 'anyOf', 'oneOf'];
const MERGED_SINGLE_KEYS = ['if', 'then', 'else'];
const MAX_DEPTH = 64;

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Builds the mapping of `schema`'s parameter names. When plain snake_case makes two names of one
 * object alike (`StartTime` and `StartTime<`), the whole schema is named again with symbols spelled
 * as words (`start_time`, `start_time_lt`), so the mapping stays deterministic.
 * @throws ToolHubError invalid_argument when two names of one object are still alike then
 *   (`pageSize` and `page_size`); the violations list every colliding group, so the operator can rename them or switch
 *   normalisation off for this server or document.
 */
export function createParamNameMap(schema: JsonSchema, options: ParamNameOptions = {}): ParamNameMap {
  if (options.normalize === false) return identityMap(schema);
  let index = new SchemaIndex(schema as Node, toSnakeCase);
  const collisions = index.collisions();
  if (collisions.length > 0) {
    // `StartTime`, `StartTime<` and `StartTime>` all become `start_time`; spelled out they do not.
    const spelled = new SchemaIndex(schema as Node, toSnakeCaseWithSymbols);
    if (spelled.collisions().length > 0) throw collisionError(collisions, options.subject ?? 'the schema');
    index = spelled;
  }
  const renames: ParamRename[] = [];
  const transformed = index.transform(renames) as JsonSchema;
  if (renames.length === 0) return identityMap(schema);
  return {
    schema: transformed,
    renames,
    identity: false,
    toNative: (args) => index.mapValue(args, [index.root], true, 0) as Record<string, unknown>,
    fromNative: (args) => index.mapValue(args, [index.root], false, 0) as Record<string, unknown>,
  };
}

function identityMap(schema: JsonSchema): ParamNameMap {
  return { schema, renames: [], identity: true, toNative: (a) => a, fromNative: (a) => a };
}

function collisionError(collisions: Collision[], subject: string): ToolHubError {
  const list = collisions.map((c) => `${c.natives.map((n) => JSON.stringify(n)).join(' and ')} ${c.at ? `in ${c.at}` : 'at the top level'} all become ${JSON.stringify(c.name)}`);
  return ToolHubError.invalidArgument(
    `Parameter names of ${subject} collide after normalisation to snake_case: ${list.join('; ')}. ` +
      'Rename the parameters at the source, or switch parameter-name normalisation off for this server or document.',
    collisions.map((c) => ({
      field: c.at ? `${c.at}.${c.name}` : c.name,
      message: `${c.natives.join(', ')} all normalise to ${c.name}`,
      expected: 'distinct names after snake_case normalisation',
    })),
  );
}

/** One schema, with lazily computed per-node views, local `$ref` resolution and the three walks. */
class SchemaIndex {
  private readonly views = new WeakMap<Node, NodeView>();

  constructor(
    readonly root: Node,
    private readonly name: (native: string) => string,
  ) {}

  /** A local JSON pointer (`#/$defs/x`); undefined for remote or broken refs (left unmapped). */
  resolve(ref: string): Node | undefined {
    if (ref === '#') return this.root;
    if (!ref.startsWith('#/')) return undefined;
    let cur: unknown = this.root;
    for (const seg of ref.slice(2).split('/').map(decodeSeg)) cur = Array.isArray(cur) ? cur[Number(seg)] : isNode(cur) ? cur[seg] : undefined;
    return isNode(cur) ? cur : undefined;
  }

  /** The nodes plus everything that describes the same value: `$ref` targets and combinator branches. */
  expand(nodes: Node[]): Node[] {
    const out: Node[] = [];
    const seen = new Set<Node>();
    const visit = (n: Node): void => {
      if (seen.has(n)) return;
      seen.add(n);
      out.push(n);
      if (typeof n.$ref === 'string') {
        const target = this.resolve(n.$ref);
        if (target) visit(target);
      }
      for (const k of MERGED_LIST_KEYS) if (Array.isArray(n[k])) for (const b of n[k] as unknown[]) if (isNode(b)) visit(b);
      for (const k of MERGED_SINGLE_KEYS) if (isNode(n[k])) visit(n[k] as Node);
    };
    nodes.forEach(visit);
    return out;
  }

  view(node: Node): NodeView {
    let view = this.views.get(node);
    if (view) return view;
    const props = new Map<string, Node[]>();
    const bySnake = new Map<string, string>();
    if (isNode(node.properties)) {
      for (const [native, child] of Object.entries(node.properties)) {
        props.set(native, isNode(child) ? [child] : []);
        bySnake.set(this.name(native), native);
      }
    }
    const other: Node[] = [];
    if (isNode(node.additionalProperties)) other.push(node.additionalProperties);
    if (isNode(node.patternProperties)) for (const s of Object.values(node.patternProperties)) if (isNode(s)) other.push(s);
    const items: Node[] = [];
    if (isNode(node.items)) items.push(node.items);
    if (isNode(node.additionalItems)) items.push(node.additionalItems);
    // 2020-12 `prefixItems`, or draft-07 tuples written as `items: [...]`
    const tuple: unknown[] = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : [];
    const prefix = tuple.map((s) => (isNode(s) ? [s] : []));
    view = { props, bySnake, other, items, prefix };
    this.views.set(node, view);
    return view;
  }

  /**
   * Maps the keys of `value` (validated by any of `nodes`) in one direction. Keys the schema does
   * not name pass through unchanged, so the provider still sees (and rejects) them.
   */
  mapValue(value: unknown, nodes: Node[], toNative: boolean, depth: number): unknown {
    if (depth > MAX_DEPTH || nodes.length === 0) return value;
    const views = this.expand(nodes).map((n) => this.view(n));
    if (Array.isArray(value)) {
      const items = views.flatMap((v) => v.items);
      return value.map((el, i) => this.mapValue(el, [...items, ...views.flatMap((v) => v.prefix[i] ?? [])], toNative, depth + 1));
    }
    if (!isNode(value)) return value;
    const entries: Array<[string, unknown]> = [];
    for (const [key, v] of Object.entries(value)) {
      const native = toNative ? views.map((view) => view.bySnake.get(key)).find((n) => n !== undefined) : views.some((view) => view.props.has(key)) ? key : undefined;
      if (native === undefined) {
        entries.push([key, this.mapValue(v, views.flatMap((view) => view.other), toNative, depth + 1)]);
      } else {
        const children = views.flatMap((view) => view.props.get(native) ?? []);
        entries.push([toNative ? native : this.name(native), this.mapValue(v, children, toNative, depth + 1)]);
      }
    }
    // Object.fromEntries defines own properties, so a "__proto__" key cannot reach the prototype.
    return Object.fromEntries(entries);
  }

  /** Every group of names of one object (with its merged branches) that normalise alike. */
  collisions(): Collision[] {
    const found = new Map<string, Collision>();
    const seen = new Set<Node>();
    const walk = (node: Node, at: string, depth: number): void => {
      if (seen.has(node) || depth > MAX_DEPTH) return;
      seen.add(node);
      const natives = new Map<string, Set<string>>();
      for (const n of this.expand([node])) {
        for (const native of this.view(n).props.keys()) {
          const name = this.name(native);
          natives.set(name, (natives.get(name) ?? new Set<string>()).add(native));
        }
      }
      for (const [name, set] of natives) {
        if (set.size < 2) continue;
        const key = `${at}\u0000${name}`;
        const all = new Set([...(found.get(key)?.natives ?? []), ...set]);
        found.set(key, { at, name, natives: [...all].sort() });
      }
      forEachSubSchema(node, this.name, (child, seg) => walk(child, joinPath(at, seg), depth + 1));
    };
    walk(this.root, '', 0);
    return [...found.values()];
  }

  /** A copy of the schema with snake_case names wherever a parameter name appears. */
  transform(renames: ParamRename[]): unknown {
    const done = new Map<Node, Node>();
    const walk = (node: Node, path: string, scope: Node[], depth: number): Node => {
      const prev = done.get(node);
      if (prev || depth > MAX_DEPTH) return prev ?? node;
      const out: Node = {};
      done.set(node, out);
      // `required` may name properties declared on a parent (`allOf: [{ required: [...] }]`).
      const here = [node, ...scope];
      const nameOf = (native: unknown): unknown =>
        typeof native === 'string' && this.expand(here).some((n) => this.view(n).props.has(native)) ? this.name(native) : native;
      const sub = (v: unknown, p: string, s: Node[] = []): unknown => (isNode(v) ? walk(v, p, s, depth + 1) : v);
      for (const [key, value] of Object.entries(node)) {
        if (key === 'properties' && isNode(value)) {
          out[key] = Object.fromEntries(
            Object.entries(value).map(([native, child]) => {
              const name = this.name(native);
              if (name !== native) renames.push({ at: path, native, name });
              return [name, sub(child, joinPath(path, name))];
            }),
          );
        } else if (key === 'required' && Array.isArray(value)) {
          out[key] = value.map(nameOf);
        } else if (key === 'dependentRequired' && isNode(value)) {
          out[key] = Object.fromEntries(Object.entries(value).map(([k, list]) => [nameOf(k), Array.isArray(list) ? list.map(nameOf) : list]));
        } else if (key === 'dependentSchemas' && isNode(value)) {
          out[key] = Object.fromEntries(Object.entries(value).map(([k, s]) => [nameOf(k), sub(s, path, here)]));
        } else if (key === '$ref' && typeof value === 'string') {
          out[key] = renamePointer(value, this.name);
        } else if ((key === 'default' || key === 'const') && typeof value === 'object' && value !== null) {
          out[key] = this.mapValue(value, [node], false, 0);
        } else if ((key === 'examples' || key === 'enum') && Array.isArray(value)) {
          out[key] = value.map((v) => (typeof v === 'object' && v !== null ? this.mapValue(v, [node], false, 0) : v));
        } else if ((MERGED_LIST_KEYS.includes(key) || key === 'prefixItems' || key === 'items') && Array.isArray(value)) {
          const merged = MERGED_LIST_KEYS.includes(key);
          out[key] = value.map((v, i) => (merged ? sub(v, path, here) : sub(v, `${path}[${i}]`)));
        } else if (MERGED_SINGLE_KEYS.includes(key)) {
          out[key] = sub(value, path, here);
        } else if (SUB_SCHEMA_KEYS.includes(key)) {
          out[key] = sub(value, key === 'items' || key === 'additionalItems' ? `${path}[]` : path);
        } else if (SUB_SCHEMA_MAP_KEYS.includes(key) && isNode(value)) {
          out[key] = Object.fromEntries(Object.entries(value).map(([k, s]) => [k, sub(s, key === 'patternProperties' ? path : `${key}.${k}`)]));
        } else {
          out[key] = value;
        }
      }
      return out;
    };
    return walk(this.root, '', [], 0);
  }
}

/** Calls `fn` for each direct sub-schema of `node`, with a readable path segment. */
function forEachSubSchema(node: Node, name: (native: string) => string, fn: (child: Node, seg: string) => void): void {
  const each = (v: unknown, seg: string): void => {
    if (isNode(v)) fn(v, seg);
  };
  if (isNode(node.properties)) for (const [k, v] of Object.entries(node.properties)) each(v, name(k));
  for (const k of SUB_SCHEMA_KEYS) each(node[k], k === 'items' || k === 'additionalItems' ? '[]' : '');
  for (const k of [...MERGED_LIST_KEYS, 'prefixItems', 'items']) {
    const list = node[k];
    if (Array.isArray(list)) list.forEach((v: unknown, i: number) => each(v, MERGED_LIST_KEYS.includes(k) ? '' : `[${i}]`));
  }
  for (const k of MERGED_SINGLE_KEYS) each(node[k], '');
  for (const k of SUB_SCHEMA_MAP_KEYS) if (isNode(node[k])) for (const [name, v] of Object.entries(node[k] as Node)) each(v, k === 'patternProperties' ? '*' : `${k}.${name}`);
  if (isNode(node.dependentSchemas)) for (const v of Object.values(node.dependentSchemas)) each(v, '');
}

function joinPath(at: string, seg: string): string {
  if (seg === '') return at;
  if (seg.startsWith('[')) return `${at}${seg}`;
  return at ? `${at}.${seg}` : seg;
}

/** A JSON pointer into the transformed schema: segments after `properties` are renamed too. */
function renamePointer(ref: string, name: (native: string) => string): string {
  if (!ref.startsWith('#/')) return ref;
  const segs = ref.slice(2).split('/');
  return `#/${segs.map((s, i) => (segs[i - 1] === 'properties' ? encodeSeg(name(decodeSeg(s))) : s)).join('/')}`;
}

function decodeSeg(s: string): string {
  return decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~');
}

function encodeSeg(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}
