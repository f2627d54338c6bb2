/**
 * A JSON Schema's top-level parameters as rows for people: name, type, required, default and the
 * first sentence of the description. Not a validator: it only has to read what adapters publish.
 */

/** One parameter of a tool. */
export interface ParameterRow {
  name: string;
  type: string;
  required: boolean;
  /** The JSON text of the default, or '' when there is none. */
  default: string;
  description: string;
}

type Schema = Record<string, unknown>;

const isSchema = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A short type for `schema`: `string`, `integer`, `"crlf"|"lf"`, `string[]`, `object[] | string`. */
export function typeOf(schema: unknown, depth = 0): string {
  if (!isSchema(schema) || depth > 3) return 'any';
  if (Array.isArray(schema['enum'])) return (schema['enum'] as unknown[]).map((v) => JSON.stringify(v)).join('|');
  if ('const' in schema) return JSON.stringify(schema['const']);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const alternatives = schema[key];
    if (Array.isArray(alternatives)) return alternatives.map((s) => typeOf(s, depth + 1)).join(' | ');
  }
  const type = schema['type'];
  if (Array.isArray(type)) return type.join(' | ');
  if (type === 'array') return `${typeOf(schema['items'], depth + 1)}[]`;
  return typeof type === 'string' ? type : 'any';
}

function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  // A sentence ends at . ! ? followed by a capital letter or the end (so "e.g. \"x\"" does not end it).
  const m = /^(.+?[.!?])(?:\s+(?=[A-Z])|$)/.exec(flat);
  return m ? m[1]! : flat;
}

/** The top-level properties of an input schema, required ones first, each in schema order. */
export function parameterRows(inputSchema: unknown): ParameterRow[] {
  if (!isSchema(inputSchema) || !isSchema(inputSchema['properties'])) return [];
  const required = new Set(Array.isArray(inputSchema['required']) ? (inputSchema['required'] as unknown[]).filter((r): r is string => typeof r === 'string') : []);
  const rows = Object.entries(inputSchema['properties']).map(([name, s]) => ({
    name,
    type: typeOf(s),
    required: required.has(name),
    default: isSchema(s) && 'default' in s ? JSON.stringify(s['default']) : '',
    description: isSchema(s) && typeof s['description'] === 'string' ? firstSentence(s['description']) : '',
  }));
  return [...rows.filter((r) => r.required), ...rows.filter((r) => !r.required)];
}
