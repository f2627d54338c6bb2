/**
 * Benchmark of @toolhub/arguments: validateAndRepair on a cache hit (valid, defaults filled, one
 * repair, rejected), plain Ajv for comparison, and the compile cost (a typical schema, and every
 * real schema of the LiveMCPBench catalog). Prints a table and writes
 * bench/results/arguments-validate.json.
 *
 *   npx tsx bench/arguments/validate.bench.ts
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';

import { ArgumentValidator } from '@toolhub/arguments';
import Ajv from 'ajv';
import { repoRoot } from '@toolhub/test-harness';

const ROOT = repoRoot(__dirname);
const CATALOG = resolve(ROOT, '../shared/data/catalogs/livemcpbench.jsonl');
const OUT = resolve(ROOT, 'bench/results/arguments-validate.json');

/** A typical tool: five properties, one required, two defaults, an enum and a path. */
const schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  additionalProperties: false,
  required: ['query'],
  properties: {
    query: { type: 'string', minLength: 1, description: 'What to search for' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
    sort: { type: 'string', enum: ['relevance', 'date', 'stars'] },
    include_archived: { type: 'boolean', default: false },
    path: { type: 'string', description: 'Only under this folder' },
  },
};

const cases: Record<string, Record<string, unknown>> = {
  'hit: valid, all given': { query: 'vector db', limit: 5, sort: 'stars', include_archived: true, path: 'src/lib' },
  'hit: valid, 2 defaults filled': { query: 'vector db', sort: 'date', path: 'src/lib' },
  'hit: 1 repair ("5" → 5)': { query: 'vector db', limit: '5', sort: 'stars', include_archived: true, path: 'src/lib' },
  'hit: rejected, 3 violations': { limit: 'many', sort: 'popular', includeArchived: true },
};

interface Row {
  name: string;
  opsPerSec: number;
  nsPerOp: number;
  note: string;
}

/** Median of 7 timed samples of `iterations` calls each, after a warm-up. */
function measure(fn: () => void, iterations: number): number {
  for (let i = 0; i < iterations; i++) fn();
  const samples: number[] = [];
  for (let s = 0; s < 7; s++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn();
    samples.push(Number(process.hrtime.bigint() - t0) / iterations);
  }
  samples.sort((a, b) => a - b);
  return samples[3]!;
}

function row(name: string, ns: number, note = ''): Row {
  return { name, opsPerSec: Math.round(1e9 / ns), nsPerOp: Math.round(ns), note };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function main(): void {
  const rows: Row[] = [];
  const validator = new ArgumentValidator();
  for (const [name, args] of Object.entries(cases)) {
    const call = (): void => {
      try {
        validator.validateAndRepair('bench:search', 'v1', schema, args);
      } catch {
        // the rejected case throws by design
      }
    };
    rows.push(row(name, measure(call, 20_000)));
  }

  // Plain Ajv on the same schema and valid input: the floor the wrapper is compared against.
  const ajv = new Ajv({ strict: false });
  const plain = ajv.compile(schema);
  const valid = cases['hit: valid, all given']!;
  rows.push(row('plain Ajv validate (reference)', measure(() => void plain(valid), 200_000), 'no copy, no repairs, no defaults'));

  // Compile cost: a new version each time (engine warm), i.e. a cache miss.
  let version = 0;
  const compileNs = measure(() => void validator.validateAndRepair('bench:search', `c${version++}`, schema, valid), 200);
  rows.push(row('miss: compile 5-property schema', compileNs, 'new version → compile + validate'));

  // Every real schema of the catalog, compiled once each by a fresh validator.
  const catalog = readFileSync(CATALOG, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { server: string; name: string; inputSchema: unknown });
  const fresh = new ArgumentValidator();
  fresh.validateAndRepair('warm:up', '0', schema, valid);
  const perSchema: number[] = [];
  const started = performance.now();
  catalog.forEach((tool, i) => {
    const t0 = performance.now();
    try {
      fresh.validateAndRepair(`${tool.server}:${tool.name}`, String(i), tool.inputSchema, {});
    } catch {
      // empty arguments miss required fields; only the compile is timed
    }
    perSchema.push(performance.now() - t0);
  });
  const totalMs = performance.now() - started;
  perSchema.sort((a, b) => a - b);
  const compileCatalog = {
    schemas: catalog.length,
    unusable: fresh.stats().unusableSchemas,
    totalMs: Math.round(totalMs),
    meanMs: +(totalMs / catalog.length).toFixed(3),
    p50Ms: +percentile(perSchema, 0.5).toFixed(3),
    p99Ms: +percentile(perSchema, 0.99).toFixed(3),
    maxMs: +perSchema[perSchema.length - 1]!.toFixed(3),
  };

  const table = [
    `${'case'.padEnd(36)} ${'ops/s'.padStart(12)} ${'ns/op'.padStart(10)}  note`,
    ...rows.map((r) => `${r.name.padEnd(36)} ${r.opsPerSec.toLocaleString('en-US').padStart(12)} ${r.nsPerOp.toLocaleString('en-US').padStart(10)}  ${r.note}`),
    '',
    `LiveMCPBench: compiled ${compileCatalog.schemas} schemas in ${compileCatalog.totalMs} ms ` +
      `(mean ${compileCatalog.meanMs} ms, p50 ${compileCatalog.p50Ms} ms, p99 ${compileCatalog.p99Ms} ms, max ${compileCatalog.maxMs} ms; unusable ${compileCatalog.unusable})`,
  ].join('\n');
  process.stdout.write(`${table}\n`);

  mkdirSync(resolve(OUT, '..'), { recursive: true });
  const result = { bench: 'arguments/validate', date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', rows, compileCatalog };
  writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`\nwrote ${OUT}\n`);
}

main();
