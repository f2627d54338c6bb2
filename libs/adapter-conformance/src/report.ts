/** Renders a conformance report as a text table (people) or JSON (CI, scripts). */
import type { ConformanceReport } from './types';

const MARK = { pass: 'PASS', fail: 'FAIL', skip: 'skip' } as const;

/** One line per rule, then each broken rule's problems, then a summary line. */
export function formatReport(report: ConformanceReport): string {
  const width = Math.max(...report.results.map((r) => r.id.length), 4);
  const lines = [
    `Adapter conformance: provider ${report.provider}, ${report.toolCount} tools, contract ${report.contractVersion || '(not announced)'}, ${report.sdkVersion || 'unknown SDK'}`,
    '',
    `${'RULE'.padEnd(width)}  RESULT  DETAIL`,
    ...report.results.map((r) => `${r.id.padEnd(width)}  ${MARK[r.status].padEnd(6)}  ${r.status === 'fail' ? r.rule : r.detail}`),
  ];
  for (const r of report.results.filter((x) => x.status === 'fail')) {
    lines.push('', `FAIL ${r.id}: ${r.rule}`, ...r.problems.map((p) => `  - ${p}`));
  }
  lines.push('', `${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped`);
  return `${lines.join('\n')}\n`;
}

/** The report as one JSON document. */
export function reportJson(report: ConformanceReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
