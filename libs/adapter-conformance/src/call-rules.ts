/**
 * Rules about requests and runs: errors by code, deadlines and cancellation, run shapes,
 * idempotency keys and large results. Tools run only when the caller names them (--run-tool,
 * --slow-tool, --large-tool); the rest use names no adapter has and requests no tool receives.
 */
import { AdapterClient, readReply } from '@toolhub/adapter-sdk';
import {
  AdapterRunResponse,
  adapterSubject,
  type ContentBlock,
  HEADER_DEADLINE,
  isToolHubError,
  MAX_RUN_IDENTIFIER_CHARS,
  RunStatus,
  type ToolHubErrorCode,
} from '@toolhub/contracts';
import { randomUUID } from 'node:crypto';

import type { Rule, RuleContext, ToolCall } from './types';

const MISSING_TOOL = 'conformance_no_such_tool_zz';
const MISSING_PATH = 'conformance-no-such-category';

const client = (ctx: RuleContext) => new AdapterClient(ctx.bus);
const call = (ctx: RuleContext) => ({ timeoutMs: ctx.options.timeoutMs, requestId: 'conformance' });

/** Runs `op` expecting a ToolHub error of `code`; returns a problem line, or undefined when it held. */
async function expectCode(what: string, code: ToolHubErrorCode, op: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await op();
    return `${what}: answered successfully, expected error code ${code}`;
  } catch (err) {
    if (!isToolHubError(err)) return `${what}: failed without a ToolHub error code (${String(err)}), expected ${code}`;
    if (err.code !== code) return `${what}: answered with code ${err.code} (${err.message.slice(0, 160)}), expected ${code}`;
    return undefined;
  }
}

function runRequest(tool: ToolCall, deadlineUnixMs: number, idempotencyKey = '') {
  return { name: tool.name, arguments: tool.arguments, deadlineUnixMs, idempotencyKey, caller: 'conformance' };
}

const notFound: Rule = {
  id: 'errors.not_found',
  rule: 'an unknown tool (info and run) and an unknown category (list) are answered with code not_found, never internal',
  async check(ctx) {
    const c = client(ctx);
    const p = ctx.options.provider;
    const problems = await Promise.all([
      expectCode(`info ${MISSING_TOOL}`, 'not_found', () => c.info(p, MISSING_TOOL, call(ctx))),
      expectCode(`run ${MISSING_TOOL}`, 'not_found', () => c.run(p, runRequest({ name: MISSING_TOOL, arguments: {} }, Date.now() + ctx.options.timeoutMs), call(ctx))),
      expectCode(`list ${MISSING_PATH}`, 'not_found', () => c.list(p, MISSING_PATH, false, call(ctx))),
    ]);
    return { problems: problems.filter((x): x is string => x !== undefined) };
  },
};

const malformed: Rule = {
  id: 'errors.malformed',
  rule: 'a request that is not a valid protobuf message is answered with code invalid_argument, never internal or silence',
  async check(ctx) {
    // An invalid varint: no decoder can read it as a message.
    const garbage = new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    const problems: string[] = [];
    for (const op of ['run', 'info'] as const) {
      const problem = await expectCode(`malformed ${op} request`, 'invalid_argument', async () => {
        const reply = await ctx.bus.request(adapterSubject(ctx.options.provider, op), garbage, {
          timeoutMs: ctx.options.timeoutMs,
          headers: { [HEADER_DEADLINE]: String(Date.now() + ctx.options.timeoutMs) },
        });
        return readReply(reply, (b) => b);
      });
      if (problem) problems.push(problem);
    }
    return { problems };
  },
};

const expiredDeadline: Rule = {
  id: 'deadline.expired',
  rule: 'a run whose deadline has already passed is refused with code timeout instead of being started',
  async check(ctx) {
    const tool = ctx.options.runTool ?? { name: ctx.facts.toolNames[0] ?? MISSING_TOOL, arguments: {} };
    const problem = await expectCode(`run ${tool.name} with a deadline 1 s in the past`, 'timeout', () => client(ctx).run(ctx.options.provider, runRequest(tool, Date.now() - 1000), call(ctx)));
    return { problems: problem ? [problem] : [], detail: `tool ${tool.name}` };
  },
};

const honoured: Rule = {
  id: 'deadline.honoured',
  rule: 'a run that outlives its deadline is answered with code timeout by the deadline (2 s of slack) and cancelled',
  async check(ctx) {
    const tool = ctx.options.slowTool;
    if (!tool) return { skip: 'name a tool that takes longer than 2 s with --slow-tool NAME (and --slow-args JSON)' };
    const started = Date.now();
    const problem = await expectCode(`run ${tool.name} with a 1000 ms deadline`, 'timeout', () =>
      client(ctx).run(ctx.options.provider, runRequest(tool, started + 1000), { timeoutMs: 1000 + 5000, requestId: 'conformance' }),
    );
    const took = Date.now() - started;
    const problems = problem ? [problem] : [];
    if (!problem && took > 3000) problems.push(`the timeout came after ${took} ms, more than 2 s past the 1000 ms deadline`);
    return { problems, detail: `timeout after ${took} ms` };
  },
};

function blockProblems(blocks: ContentBlock[]): string[] {
  return blocks.flatMap((b, i) => {
    const kinds = (['text', 'image', 'resource', 'json', 'audio'] as const).filter((k) => b[k] !== undefined);
    return kinds.length === 1 ? [] : [`content block ${i} has ${kinds.length === 0 ? 'no kind' : `several kinds (${kinds.join(', ')})`}; exactly one of text, image, resource, json, audio`];
  });
}

const runShape: Rule = {
  id: 'run.shape',
  rule: 'run answers status OK with content blocks of exactly one kind each (or TOOL_ERROR with a message)',
  async check(ctx) {
    const tool = ctx.options.runTool;
    if (!tool) return { skip: 'name a tool safe to run twice with --run-tool NAME (and --run-args JSON)' };
    const res = await client(ctx).run(ctx.options.provider, runRequest(tool, Date.now() + ctx.options.timeoutMs), call(ctx));
    const problems = blockProblems(res.content);
    if (res.status === RunStatus.RUN_STATUS_TOOL_ERROR && !res.errorMessage) problems.push('TOOL_ERROR without an error message');
    if (res.status !== RunStatus.RUN_STATUS_OK && res.status !== RunStatus.RUN_STATUS_TOOL_ERROR) problems.push(`status ${res.status} is neither OK nor TOOL_ERROR`);
    if (res.status === RunStatus.RUN_STATUS_OK && res.content.length === 0 && res.structured === undefined) problems.push('status OK with no content and no structured result');
    return { problems, detail: `${res.content.length} content blocks` };
  },
};

const idempotency: Rule = {
  id: 'idempotency',
  rule: `two runs with one idempotency key get the same result; keys over ${MAX_RUN_IDENTIFIER_CHARS} characters are refused with invalid_argument`,
  async check(ctx) {
    const tool = ctx.options.runTool;
    if (!tool) return { skip: 'needs --run-tool' };
    const c = client(ctx);
    const key = `conformance-${randomUUID()}`;
    const first = await c.run(ctx.options.provider, runRequest(tool, Date.now() + ctx.options.timeoutMs, key), call(ctx));
    const second = await c.run(ctx.options.provider, runRequest(tool, Date.now() + ctx.options.timeoutMs, key), call(ctx));
    const problems: string[] = [];
    const bytes = (r: AdapterRunResponse) => Buffer.from(AdapterRunResponse.encode(r).finish()).toString('base64');
    if (bytes(first) !== bytes(second)) problems.push(`two runs of ${tool.name} with idempotency key ${key} gave different results (the second must replay the first)`);
    const long = await expectCode(`run with a ${MAX_RUN_IDENTIFIER_CHARS + 1}-character idempotency key`, 'invalid_argument', () =>
      c.run(ctx.options.provider, runRequest(tool, Date.now() + ctx.options.timeoutMs, 'k'.repeat(MAX_RUN_IDENTIFIER_CHARS + 1)), call(ctx)),
    );
    if (long) problems.push(long);
    return { problems };
  },
};

const largeResult: Rule = {
  id: 'results.large',
  rule: 'a result larger than one bus reply is answered as TOOL_ERROR saying to ask for less, never as a lost or internal reply',
  async check(ctx) {
    const tool = ctx.options.largeTool;
    if (!tool) return { skip: 'name a tool and arguments whose result exceeds the bus limit with --large-tool NAME --large-args JSON' };
    try {
      const res = await client(ctx).run(ctx.options.provider, runRequest(tool, Date.now() + ctx.options.timeoutMs), call(ctx));
      if (res.status !== RunStatus.RUN_STATUS_TOOL_ERROR) return { problems: [`run ${tool.name} answered status ${res.status}; expected TOOL_ERROR for a result over the bus limit (${ctx.bus.maxPayload} bytes)`] };
      return { problems: /\bbytes\b/.test(res.errorMessage) ? [] : [`the TOOL_ERROR message does not say the result was too large: ${res.errorMessage.slice(0, 160)}`] };
    } catch (err) {
      return { problems: [`run ${tool.name} failed (${isToolHubError(err) ? err.code : 'no code'}: ${String((err as Error).message ?? err).slice(0, 160)}); expected a TOOL_ERROR saying the result is too large`] };
    }
  },
};

const drain: Rule = {
  id: 'drain',
  rule: 'on SIGTERM a replica says "stopping" in a heartbeat, takes no new calls and finishes its in-flight ones',
  check: async () => ({ skip: 'stopping a replica needs control of its process: test it with service.close() (the SDK does this; see ADAPTERS.md)' }),
};

/** The rules that send requests, in the order they run. */
export const CALL_RULES: readonly Rule[] = [notFound, malformed, expiredDeadline, honoured, runShape, idempotency, largeResult, drain];
