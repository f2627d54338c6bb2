/**
 * `toolhub-adapter-conformance --nats URL --provider NAME [--json] …`: connects to NATS, checks the
 * adapter, prints the report. Exit codes: 0 every rule passed (or was skipped), 1 a rule failed,
 * 2 bad usage or NATS unreachable.
 */
import { NatsBus } from '@toolhub/bus';
import { parseArgs } from 'node:util';

import { formatReport, reportJson } from './report';
import { runConformance } from './run-conformance';
import type { ToolCall } from './types';

/** Exit codes of the command. */
export const CONFORMANCE_EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export const USAGE = `Usage: toolhub-adapter-conformance --provider NAME [options]

Checks a live ToolHub adapter over NATS against the adapter contract and prints a report.

Options:
  --nats URL          NATS server (default: $NATS_URL or nats://127.0.0.1:4222)
  --provider NAME     provider the adapter serves (required)
  --json              print the report as JSON
  --timeout MS        timeout of each request (default 5000)
  --max-info N        fetch the info of at most N tools (default 500)
  --run-tool NAME     a tool safe to run twice: checks run shape and idempotency keys
  --run-args JSON     its arguments (default {})
  --slow-tool NAME    a tool taking longer than 2 s: checks deadlines and cancellation
  --slow-args JSON
  --large-tool NAME   a tool whose result exceeds the bus limit: checks large results
  --large-args JSON
  --help

Exit codes: 0 all rules passed or were skipped, 1 a rule failed, 2 bad usage or NATS unreachable.
`;

/** Where the command writes. */
export interface ConformanceIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
}

function toolCall(name: string | undefined, json: string | undefined, flag: string): ToolCall | undefined {
  if (!name) return undefined;
  const args: unknown = JSON.parse(json ?? '{}');
  if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new Error(`--${flag}-args must be a JSON object`);
  return { name, arguments: args as Record<string, unknown> };
}

/** Runs the command; resolves with its exit code. */
export async function conformanceMain(argv: string[], io: ConformanceIo): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        nats: { type: 'string' },
        provider: { type: 'string' },
        json: { type: 'boolean', default: false },
        timeout: { type: 'string' },
        'max-info': { type: 'string' },
        'run-tool': { type: 'string' },
        'run-args': { type: 'string' },
        'slow-tool': { type: 'string' },
        'slow-args': { type: 'string' },
        'large-tool': { type: 'string' },
        'large-args': { type: 'string' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${USAGE}`);
    return CONFORMANCE_EXIT.usage;
  }
  if (values.help) {
    io.out(USAGE);
    return CONFORMANCE_EXIT.ok;
  }
  if (!values.provider) {
    io.err(`--provider is required\n\n${USAGE}`);
    return CONFORMANCE_EXIT.usage;
  }
  let options;
  try {
    options = {
      provider: values.provider,
      timeoutMs: values.timeout ? Number(values.timeout) : undefined,
      maxInfo: values['max-info'] ? Number(values['max-info']) : undefined,
      runTool: toolCall(values['run-tool'], values['run-args'], 'run'),
      slowTool: toolCall(values['slow-tool'], values['slow-args'], 'slow'),
      largeTool: toolCall(values['large-tool'], values['large-args'], 'large'),
    };
    for (const [flag, v] of [['timeout', options.timeoutMs], ['max-info', options.maxInfo]] as const) {
      if (v !== undefined && !(Number.isInteger(v) && v > 0)) throw new Error(`--${flag} must be a positive integer`);
    }
  } catch (err) {
    io.err(`${(err as Error).message}\n`);
    return CONFORMANCE_EXIT.usage;
  }
  const servers = values.nats ?? io.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
  let bus: NatsBus;
  try {
    bus = await NatsBus.connect({ servers, name: 'toolhub-adapter-conformance' });
  } catch (err) {
    io.err(`cannot connect to NATS at ${servers}: ${(err as Error).message}\n`);
    return CONFORMANCE_EXIT.usage;
  }
  try {
    const report = await runConformance(bus, { ...options, timeoutMs: options.timeoutMs ?? 5000, maxInfo: options.maxInfo ?? 500 });
    io.out(values.json ? reportJson(report) : formatReport(report));
    return report.failed > 0 ? CONFORMANCE_EXIT.failed : CONFORMANCE_EXIT.ok;
  } catch (err) {
    io.err(`${(err as Error).message}\n`);
    return CONFORMANCE_EXIT.usage;
  } finally {
    await bus.close();
  }
}
