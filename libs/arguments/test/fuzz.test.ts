/**
 * Property-style test over real MCP tool schemas (LiveMCPBench, /work/shared/data): for many random
 * argument shapes — plausible values, the mistakes LLMs make, and junk — validateAndRepair either
 * returns arguments that an independent Ajv accepts, or throws invalid_argument with usable
 * violations. Nothing else, and the input is never mutated.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { ArgumentValidator } from '@toolhub/arguments';
import { findToolHubError } from '@toolhub/contracts';
import { seededRandom } from '@toolhub/test-harness';
import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

const CATALOG = resolve(__dirname, '../../../../shared/data/catalogs/livemcpbench.jsonl');
const CASES_PER_SCHEMA = 16;

interface Row {
  server: string;
  name: string;
  inputSchema: Record<string, unknown>;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = Record<string, unknown>;

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

const STRINGS = ['', 'a', 'hello world', 'C:\\Users\\me\\file.txt', './a//b', '  padded  ', '42', '-1.5', 'true', 'FALSE', '{"a":1}', '[1,2]', 'null', 'Ünïcødé 漢字', 'x'.repeat(300), '0x1F', '1e999'];

function junk(r: () => number, depth = 0): Json {
  const roll = r();
  if (depth > 3 || roll < 0.5) return pick(r, [null, true, false, 0, -1, 3.14, 2 ** 60, Number.MAX_SAFE_INTEGER, ...STRINGS]);
  if (roll < 0.75) return Array.from({ length: Math.floor(r() * 4) }, () => junk(r, depth + 1));
  const obj: Record<string, Json> = {};
  for (let i = Math.floor(r() * 4); i > 0; i--) obj[pick(r, ['a', 'x', 'name', 'path', '__proto__', 'constructor', 'toString', 'query'])] = junk(r, depth + 1);
  return obj;
}

/** A plausible value for `schema`, mostly valid. */
function plausible(schema: unknown, root: Schema, r: () => number, depth = 0): Json {
  if (typeof schema !== 'object' || schema === null || depth > 5) return junk(r, 3);
  let s = schema as Schema;
  if (typeof s['$ref'] === 'string' && s['$ref'].startsWith('#/')) {
    const target = s['$ref']
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (node as Schema | undefined)?.[key], root);
    if (target && typeof target === 'object') s = target as Schema;
  }
  if (Array.isArray(s['enum']) && s['enum'].length) return pick(r, s['enum'] as Json[]);
  if ('default' in s && r() < 0.3) return s['default'] as Json;
  for (const k of ['anyOf', 'oneOf']) if (Array.isArray(s[k]) && (s[k] as unknown[]).length) return plausible(pick(r, s[k] as unknown[]), root, r, depth + 1);
  const type = Array.isArray(s['type']) ? pick(r, s['type'] as string[]) : s['type'];
  switch (type) {
    case 'string':
      return pick(r, ['report.pdf', 'hello', 'AAPL', '2024-01-31', 'https://example.com', 'docs\\a.md']);
    case 'integer':
      return Math.floor(r() * 20);
    case 'number':
      return Math.round(r() * 1000) / 10;
    case 'boolean':
      return r() < 0.5;
    case 'null':
      return null;
    case 'array':
      return Array.from({ length: 1 + Math.floor(r() * 2) }, () => plausible(s['items'] ?? {}, root, r, depth + 1));
    default: {
      const props = (s['properties'] ?? {}) as Schema;
      const required = Array.isArray(s['required']) ? (s['required'] as string[]) : [];
      const out: Record<string, Json> = {};
      for (const [k, sub] of Object.entries(props)) if (required.includes(k) || r() < 0.5) out[k] = plausible(sub, root, r, depth + 1);
      return out;
    }
  }
}

/** The mistakes LLMs make, applied at random to a plausible value. */
function mistake(value: Json, r: () => number, depth = 0): Json {
  if (depth > 6) return value;
  const roll = r();
  if (typeof value === 'number') return roll < 0.5 ? String(value) : roll < 0.6 ? `${value} ` : value;
  if (typeof value === 'boolean') return roll < 0.4 ? String(value).toUpperCase() : value;
  if (typeof value === 'string') {
    if (roll < 0.15) return value.toUpperCase();
    if (roll < 0.25) return value.slice(0, -1);
    if (roll < 0.3) return `${value}\\x//./y`;
    if (roll < 0.35) return null;
    return value;
  }
  if (Array.isArray(value)) {
    if (roll < 0.2 && value.length === 1) return value[0]!;
    if (roll < 0.3) return JSON.stringify(value);
    return value.map((v) => mistake(v, r, depth + 1));
  }
  if (value !== null && typeof value === 'object') {
    if (roll < 0.1) return JSON.stringify(value);
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(value)) {
      const key = r() < 0.05 ? `${k}s` : r() < 0.05 ? k.toUpperCase() : k;
      if (r() < 0.05) continue;
      out[key] = r() < 0.1 ? null : r() < 0.1 ? junk(r) : mistake(v, r, depth + 1);
    }
    if (r() < 0.1) out[pick(r, ['extra', 'verbose', 'limit', '__proto__'])] = junk(r);
    return out;
  }
  return value;
}

/** Ajv set up independently of the library (no defaults, no repairs), for checking its output. */
const independentEngines = (() => {
  const regExp = Object.assign(
    (pattern: string, flags: string) => {
      try {
        return new RegExp(pattern, flags);
      } catch {
        return new RegExp(pattern, flags.replace('u', ''));
      }
    },
    { code: 'new RegExp' },
  );
  const options = { strict: false, addUsedSchema: false, code: { regExp } };
  return [new Ajv(options), new Ajv2020(options)].map((ajv) => {
    addFormats(ajv);
    return ajv;
  });
})();

function independentValidator(schema: Schema): ValidateFunction | undefined {
  const copy = structuredClone(schema);
  delete copy['$schema'];
  for (const ajv of independentEngines) {
    try {
      return ajv.compile(copy);
    } catch {
      // try the next dialect
    }
  }
  return undefined;
}

describe('validateAndRepair over real MCP tool schemas', () => {
  it('finds the LiveMCPBench catalog in the shared data folder', () => {
    expect(existsSync(CATALOG)).toBe(true);
  });

  it('either returns arguments that validate or throws invalid_argument, for random argument shapes', () => {
    const rows = readFileSync(CATALOG, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Row);
    expect(rows.length).toBeGreaterThan(500);
    const validator = new ArgumentValidator();
    const outcomes = { valid: 0, repaired: 0, rejected: 0, unchecked: 0, independentlyChecked: 0 };
    const failures: string[] = [];
    const r = seededRandom(20240131);
    rows.forEach((row, index) => {
      const toolId = `${row.server}:${row.name}`;
      const independent = independentValidator(row.inputSchema);
      for (let c = 0; c < CASES_PER_SCHEMA; c++) {
        const base = plausible(row.inputSchema, row.inputSchema, r);
        const shape = c % 4 === 3 ? junk(r) : c % 4 === 0 ? base : mistake(base, r);
        const args = (shape !== null && typeof shape === 'object' && !Array.isArray(shape) ? shape : { value: shape }) as Record<string, unknown>;
        const before = JSON.stringify(args);
        try {
          const result = validator.validateAndRepair(toolId, String(index), row.inputSchema, args);
          if (!result.validated) {
            outcomes.unchecked++;
          } else {
            outcomes[result.fixes.length ? 'repaired' : 'valid']++;
            if (independent) {
              outcomes.independentlyChecked++;
              if (!independent(structuredClone(result.args))) failures.push(`${toolId}: returned invalid args ${JSON.stringify(result.args)}: ${JSON.stringify(independent.errors)}`);
            }
          }
        } catch (err) {
          const e = findToolHubError(err);
          if (e?.code !== 'invalid_argument') {
            failures.push(`${toolId}: threw ${String(err)} for ${before}`);
          } else {
            outcomes.rejected++;
            if (e.violations.length === 0 || e.violations.some((v) => !v.field.startsWith('/') || v.message === '')) failures.push(`${toolId}: unusable violations ${JSON.stringify(e.violations)}`);
          }
        }
        if (JSON.stringify(args) !== before) failures.push(`${toolId}: mutated the input ${before}`);
      }
    });
    expect(failures.slice(0, 5)).toEqual([]);
    // Every kind of outcome occurs, so the generators exercise what they are meant to.
    expect(outcomes.valid).toBeGreaterThan(100);
    expect(outcomes.repaired).toBeGreaterThan(100);
    expect(outcomes.rejected).toBeGreaterThan(100);
    expect(outcomes.independentlyChecked).toBeGreaterThan(outcomes.valid);
    expect(validator.stats().unusableSchemas).toBe(0);
  }, 60_000);
});
