/**
 * @toolhub/adapter-conformance — checks a live adapter against the adapter contract: list, info
 * and run shapes, names and schemas, errors by code, deadlines, idempotency keys, heartbeats,
 * catalog and result size. Use the `toolhub-adapter-conformance` command, or `runConformance` in
 * your own tests. Any new export added here becomes public API.
 */
export type { ConformanceOptions, ConformanceReport, RuleResult, RuleStatus, ToolCall } from './types';
export { runConformance, conformanceRuleIds } from './run-conformance';
export { formatReport, reportJson } from './report';
export { conformanceMain, CONFORMANCE_EXIT, type ConformanceIo, USAGE } from './cli';
export { schemaProblems } from './catalog-rules';
