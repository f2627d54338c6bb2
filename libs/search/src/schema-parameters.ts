/**
 * The parameters of a tool's JSON Schema as search sees them: property names with their schemas,
 * nested objects and array items included, bounded so a huge schema cannot drown the tool's name
 * (shared by the lexical index and the embedding text).
 */

/** Deepest nesting of parameter objects visited. */
const MAX_PARAM_DEPTH = 3;
/** Most parameters visited per tool. */
const MAX_PARAMS = 64;

/** Calls `visit` for each property of `schema` (depth-first, at most 64, nested up to 3 levels). */
export function forEachParameter(schema: unknown, visit: (name: string, property: Record<string, unknown>) => void): void {
  let count = 0;
  const walk = (node: unknown, depth: number): void => {
    if (depth > MAX_PARAM_DEPTH || node === null || typeof node !== 'object' || count >= MAX_PARAMS) return;
    const s = node as { properties?: unknown; items?: unknown };
    if (s.properties !== null && typeof s.properties === 'object') {
      for (const [name, prop] of Object.entries(s.properties as Record<string, unknown>)) {
        if (count++ >= MAX_PARAMS) return;
        visit(name, (prop !== null && typeof prop === 'object' ? prop : {}) as Record<string, unknown>);
        walk(prop, depth + 1);
      }
    }
    if (s.items !== undefined) walk(s.items, depth + 1);
  };
  walk(schema, 1);
}
