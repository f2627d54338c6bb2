/** Small JSON helpers: a bounded deep copy, JSON pointers, and short previews of values. */

/** A plain JSON-like object (not an array, not null). */
export type JsonObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is JsonObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Thrown by {@link cloneJson} when the value nests deeper than allowed (or is cyclic). */
export class TooDeepError extends Error {
  override readonly name = 'TooDeepError';
  constructor(readonly maxDepth: number) {
    super(`value nests deeper than ${maxDepth} levels`);
  }
}

/**
 * Deep copy of JSON-like data, as it would travel on the wire: plain objects and arrays are copied,
 * primitives shared, other objects copied as their `toJSON()` (Date → ISO text) or their own
 * enumerable properties, so nothing the caller holds can be mutated later. Bounded by `maxDepth` so
 * a hostile or cyclic value cannot blow the stack.
 * @throws TooDeepError past `maxDepth` levels.
 */
export function cloneJson(value: unknown, maxDepth: number, depth = 1): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > maxDepth) throw new TooDeepError(maxDepth);
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneJson(value[i], maxDepth, depth + 1);
    return out;
  }
  if (!isPlainObject(value) && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return cloneJson((value as { toJSON: () => unknown }).toJSON(), maxDepth, depth + 1);
  }
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const v = cloneJson((value as JsonObject)[key], maxDepth, depth + 1);
    // `out[key] = v` would set the prototype for a key named __proto__ (JSON.parse makes such keys).
    if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  return out;
}

/** The pointer of the first place where `value` nests deeper than `maxDepth` (for the error message). */
export function tooDeepPointer(value: unknown, maxDepth: number): string {
  const stack: Array<{ v: unknown; depth: number; pointer: string }> = [{ v: value, depth: 1, pointer: '' }];
  while (stack.length > 0) {
    const { v, depth, pointer } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > maxDepth) return pointer;
    for (const [k, child] of Object.entries(v)) stack.push({ v: child, depth: depth + 1, pointer: childPointer(pointer, k) });
  }
  return '';
}

/** Escapes one reference token of a JSON pointer (RFC 6901). */
export function escapePointerToken(token: string): string {
  if (!token.includes('~') && !token.includes('/')) return token;
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Splits a JSON pointer into unescaped tokens. `''` is the root. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Appends one token to a pointer. */
export function childPointer(pointer: string, token: string | number): string {
  return `${pointer}/${escapePointerToken(String(token))}`;
}

/** The pointer as shown to callers: the root is `/`. */
export function displayPointer(pointer: string): string {
  return pointer === '' ? '/' : pointer;
}

/** A mutable slot in a JSON tree: the container and key of the value at a pointer. */
export interface Slot {
  container: JsonObject | unknown[];
  key: string;
}

/**
 * The container and key of the value at `pointer` inside `holder.root`; the root itself lives in
 * `holder` under key `root`. Undefined when the path does not exist.
 */
export function slotAt(holder: { root: unknown }, pointer: string): Slot | undefined {
  const tokens = parsePointer(pointer);
  let container: JsonObject | unknown[] = holder as unknown as JsonObject;
  let key = 'root';
  for (const token of tokens) {
    const next = readSlot({ container, key });
    if (next === null || typeof next !== 'object') return undefined;
    container = next as JsonObject | unknown[];
    key = token;
  }
  if (!Object.hasOwn(container, key)) return undefined;
  return { container, key };
}

export function readSlot(slot: Slot): unknown {
  return (slot.container as JsonObject)[slot.key];
}

export function writeSlot(slot: Slot, value: unknown): void {
  if (slot.key === '__proto__') Object.defineProperty(slot.container, slot.key, { value, enumerable: true, writable: true, configurable: true });
  else (slot.container as JsonObject)[slot.key] = value;
}

/** The JSON type name of a value, as JSON Schema spells it (`integer` for whole numbers). */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** JSON text of a value, cut to `max` characters (for messages, never for data). */
export function preview(value: unknown, max = 60): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
