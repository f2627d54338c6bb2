/**
 * The chaos suite, by one command:
 *
 *   npm run bench -- chaos
 *
 * Starts the multi-process deployment (bench/chaos/stack.ts), runs every scenario of
 * bench/chaos/scenarios.ts one after the other on it, then 2,000 concurrent calls, prints a table
 * and writes bench/results/chaos.json. `CHAOS_ONLY=<name>[,<name>]` runs some scenarios (and
 * `database-outage` and `overload-2000` by those names); the apps run as built
 * JavaScript from dist/apps (`npm run bench -- chaos` builds them first), or under tsx with CHAOS_BUILT=0. The database outage reads CHAOS_OUTAGE_RATE, CHAOS_OUTAGE_MS,
 * CHAOS_OUTAGE_MODE, CHAOS_OUTAGE_WARM_MS and CHAOS_OUTAGE_MAX_AFTER_MS (see `outageOptions`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

import { outageName, outageOptions, runDatabaseOutage, runOverload, runScenario, SCENARIOS, type ScenarioResult } from './scenarios';
import { startChaosStack } from './stack';
import { repoRoot } from '@toolhub/test-harness';

const ROOT = repoRoot(__dirname);
const OUT = resolve(ROOT, process.env['CHAOS_OUT'] ?? 'bench/results/chaos.json');
const ONLY = process.env['CHAOS_ONLY']?.split(',').filter(Boolean);
const wanted = (name: string): boolean => !ONLY || ONLY.includes(name);

/** The aims of issue 11, checked per row. */
function verdict(r: ScenarioResult): string {
  const problems: string[] = [];
  if (r.lost > 0) problems.push(`${r.lost} lost`);
  if (r.doubleCounted > 0) problems.push(`${r.doubleCounted} double-counted`);
  if (!r.statsExact) problems.push('stats ≠ client');
  if (r.inFlightResolvedMs !== undefined && r.inFlightResolvedMs > 2000) problems.push(`in-flight calls resolved after ${r.inFlightResolvedMs} ms (aim 2 s)`);
  if (r.p99AdmittedMs !== undefined && r.p99AdmittedMs >= 1000) problems.push(`p99 admitted ${r.p99AdmittedMs} ms (aim < 1 s)`);
  if (r.dispatcherPeakRssMiB !== undefined && r.dispatcherPeakRssMiB >= 300) problems.push(`RSS ${r.dispatcherPeakRssMiB} MiB (aim < 300)`);
  if (r.cpuPerRefusedUs !== undefined && r.cpuPerRefusedUs >= 50) problems.push(`CPU per refused call ~${r.cpuPerRefusedUs} µs (aim < 50)`);
  if (r.scenario.startsWith('overload') && !r.failedByCode['RESOURCE_EXHAUSTED']) problems.push('nothing shed');
  if (r.outage && r.outage.achievedRate < 0.95 * r.outage.targetRate) problems.push(`load ${r.outage.achievedRate}/s, not the ${r.outage.targetRate}/s asked`);
  if (r.outage && r.outage.backlogDrainedMs < 0) problems.push('backlog not drained while the load ran');
  return problems.length ? problems.join('; ') : 'met';
}

function outageNote(o: NonNullable<ScenarioResult['outage']>): string {
  return (
    `${o.mode} ${o.outageMs} ms at ${o.achievedRate}/s (asked ${o.targetRate}/s${o.notStarted ? `, ${o.notStarted} not started` : ''}); ` +
    `backlog ${o.backlogAtRestart} events at restart, drained ${o.backlogDrainedMs} ms after it (${o.ingestPerSecond} events/s); ` +
    `lag 0 and stats exact ${o.catchUpMs} ms after the database came back`
  );
}

function table(rows: ScenarioResult[]): string {
  const head = ['scenario', 'sent', 'ok', 'failed by code', 'recovery ms', 'in-flight resolved ms', 'answered', 'uncertain', 'stats Δ', 'lost', 'double', 'catch-up ms', 'p99 ms', 'aims', 'note'];
  const body = rows.map((r) => [
    r.scenario,
    String(r.sent),
    String(r.ok),
    Object.entries(r.failedByCode).map(([k, v]) => `${k} ${v}`).join(', ') || '-',
    String(r.recoveryMs),
    r.inFlightResolvedMs === undefined ? '' : String(r.inFlightResolvedMs),
    String(r.answered),
    String(r.uncertain),
    String(r.statsDelta),
    String(r.lost),
    String(r.doubleCounted),
    String(r.statsCatchUpMs),
    r.p99AdmittedMs === undefined ? String(r.p99Ms) : `${r.p99Ms} (admitted ${r.p99AdmittedMs}, RSS ${r.dispatcherPeakRssMiB} MiB)`,
    verdict(r),
    r.outage ? outageNote(r.outage) : (r.note ?? ''),
  ]);
  const widths = head.map((h, c) => Math.max(h.length, ...body.map((b) => b[c]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

async function main(): Promise<void> {
  const stack = await startChaosStack({ built: process.env['CHAOS_BUILT'] !== '0', mcp: SCENARIOS.some((s) => s.name === 'mcp-child-kill' && wanted(s.name)) || wanted('overload-2000') });
  const rows: ScenarioResult[] = [];
  try {
    for (const s of SCENARIOS.filter((x) => wanted(x.name))) {
      process.stderr.write(`chaos: ${s.name}…\n`);
      rows.push(await runScenario(stack, s));
      process.stderr.write(`${JSON.stringify(rows.at(-1))}\n`);
    }
    const outage = outageOptions();
    if (wanted(outageName(outage)) || wanted('database-outage')) {
      process.stderr.write(`chaos: ${outageName(outage)}…\n`);
      rows.push(await runDatabaseOutage(stack, outage));
      process.stderr.write(`${JSON.stringify(rows.at(-1))}\n`);
    }
    if (wanted('overload-2000')) {
      // CHAOS_OVERLOAD_BURSTS=n: n bursts on the same stack, 5 s apart (the first is the scenario; later ones show a warmed-up dispatcher).
      const bursts = Math.max(1, Number(process.env['CHAOS_OVERLOAD_BURSTS'] ?? 1) || 1);
      for (let i = 0; i < bursts; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 5000));
        process.stderr.write('chaos: overload-2000…\n');
        rows.push(await runOverload(stack));
      }
    }
  } catch (err) {
    // Said before the stack closes: a close that hangs would otherwise hide why the run failed.
    process.stderr.write(`chaos suite failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    throw err;
  } finally {
    if (process.env['CHAOS_LOGS']) {
      mkdirSync(process.env['CHAOS_LOGS'], { recursive: true });
      for (const [name, out] of Object.entries(stack.logs())) writeFileSync(join(process.env['CHAOS_LOGS'], `${name}.log`), out);
    }
    await stack.close();
  }
  process.stdout.write(`${table(rows)}\n`);
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, JSON.stringify({ at: new Date().toISOString(), apps: process.env['CHAOS_BUILT'] === '0' ? 'tsx' : 'node dist/apps', rows: rows.map((r) => ({ ...r, aims: verdict(r) })) }, null, 2));
  process.stdout.write(`wrote ${OUT}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`chaos suite failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
