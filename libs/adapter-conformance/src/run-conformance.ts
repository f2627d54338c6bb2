/** Runs every rule against one live adapter and collects the report. */
import type { Bus } from '@toolhub/bus';
import { assertProviderName, isToolHubError } from '@toolhub/contracts';

import { CALL_RULES } from './call-rules';
import { CATALOG_RULES } from './catalog-rules';
import type { ConformanceOptions, ConformanceReport, ResolvedConformanceOptions, Rule, RuleContext, RuleResult } from './types';

/** At most this many problem lines per rule; the rest are counted. */
const MAX_PROBLEMS = 10;

function withDefaults(options: ConformanceOptions): ResolvedConformanceOptions {
  return { timeoutMs: 5000, heartbeatWaitMs: 6000, maxInfo: 500, ...options };
}

async function runRule(rule: Rule, ctx: RuleContext): Promise<RuleResult> {
  const started = Date.now();
  const base = { id: rule.id, rule: rule.rule };
  try {
    const out = await rule.check(ctx);
    const durationMs = Date.now() - started;
    if ('skip' in out) return { ...base, status: 'skip', problems: [], detail: out.skip, durationMs };
    const problems = out.problems.length > MAX_PROBLEMS ? [...out.problems.slice(0, MAX_PROBLEMS), `… and ${out.problems.length - MAX_PROBLEMS} more`] : out.problems;
    return { ...base, status: problems.length ? 'fail' : 'pass', problems, detail: out.detail ?? '', durationMs };
  } catch (err) {
    // A rule that could not even ask is broken for the adapter too: say what the adapter answered.
    const text = isToolHubError(err) ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);
    return { ...base, status: 'fail', problems: [`the check could not complete: ${text.slice(0, 300)}`], detail: '', durationMs: Date.now() - started };
  }
}

/**
 * Checks the adapter serving `options.provider` on `bus` against every rule of the adapter
 * contract. Never throws for a broken adapter: the report says what is broken.
 * @throws ToolHubError invalid_argument for a provider name no adapter may have.
 */
export async function runConformance(bus: Bus, options: ConformanceOptions): Promise<ConformanceReport> {
  assertProviderName(options.provider);
  const ctx: RuleContext = { bus, options: withDefaults(options), facts: { toolNames: [], contractVersion: '', sdkVersion: '', listBytes: 0 } };
  const results: RuleResult[] = [];
  for (const rule of [...CATALOG_RULES, ...CALL_RULES]) results.push(await runRule(rule, ctx));
  return {
    provider: options.provider,
    contractVersion: ctx.facts.contractVersion,
    sdkVersion: ctx.facts.sdkVersion,
    toolCount: ctx.facts.toolNames.length,
    passed: results.filter((r) => r.status === 'pass').length,
    failed: results.filter((r) => r.status === 'fail').length,
    skipped: results.filter((r) => r.status === 'skip').length,
    results,
  };
}

/** The ids of every rule, in the order they run. */
export function conformanceRuleIds(): string[] {
  return [...CATALOG_RULES, ...CALL_RULES].map((r) => r.id);
}
