/**
 * Runs the tool calls an LLM makes: the four meta-tools, and discovered or preloaded tools called
 * directly by their exposed name (routed to RunTool). Always answers with compact text; failures
 * come back as `isError: true` with what went wrong and how to fix the call, never as exceptions,
 * so the agent loop can hand every result straight back to the model.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { parseToolId, type RunInfo, RunStatus, toolId, toToolHubError } from '@toolhub/contracts';

import type { CallOptions, ToolHubApi } from './client';
import { findToolHubCallError } from './errors';
import { formatFailure, formatInfo, formatListing, formatRun, formatSearch, truncate } from './format-result';
import { formatRunResult, formatRunStarted, isEnded } from './format-run-info';
import type { LoadedTools } from './loaded-tools';
import { isMetaToolName, META_TOOL_NAMES } from './meta-tools';
import { SearchMemory, type SearchMemoryOptions } from './search-memory';
import { parseExposedToolName, type ToolRef } from './tool-names';

/** A tool call as LLM APIs return it; `arguments` may be the JSON text (OpenAI) or an object (Anthropic, MCP). */
export interface ToolCall {
  name: string;
  arguments?: string | Record<string, unknown> | null;
}

/** What to hand back to the model. */
export interface ToolCallResult {
  content: string;
  isError: boolean;
}

/** Options of {@link ToolCallExecutor}. */
export interface ExecutorOptions {
  /** Where tool_info results are exposed and direct calls are resolved; without it only meta-tools and plain `<provider>__<name>` names work. */
  loaded?: LoadedTools;
  /** Longest result text returned to the model; the rest is cut with a note. @default 16000 */
  maxResultChars?: number;
  /** tool_search hits when the model gives no limit. @default 8 */
  searchLimit?: number;
  /** Largest tool_search limit honoured. @default 25 */
  maxSearchLimit?: number;
  /**
   * Remember which tool_search returned which tool and send that search id with the next
   * successful run of the tool (RunToolRequest.search_id), so the registry learns which tool
   * ran after which query. `false` turns it off; an object tunes it. @default true
   */
  rememberSearches?: boolean | SearchMemoryOptions;
  /**
   * Ask SearchTools to explain its hits and show `(matched: name, description)` per hit: a few
   * tokens per hit, useful while tuning a catalog, rarely to the model. @default false
   */
  explainSearch?: boolean;
}

/** A mistake in the model's call, reported back before anything is sent. */
class CallShapeError extends Error {}

type Args = Record<string, unknown>;

function parseArguments(raw: ToolCall['arguments']): Args {
  if (raw === undefined || raw === null || raw === '') return {};
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (err) {
      throw new CallShapeError(`the arguments are not valid JSON (${(err as Error).message}). Send one JSON object, e.g. {"name":"file_read"}.`);
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new CallShapeError('the arguments must be a JSON object, e.g. {"name":"file_read"}.');
  return value as Args;
}

function optionalString(args: Args, key: string): string {
  const v = args[key];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new CallShapeError(`"${key}" must be a string; got ${JSON.stringify(v)}.`);
  return v.trim();
}

function optionalInt(args: Args, key: string): number {
  const v = args[key];
  if (v === undefined || v === null || v === '') return 0;
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new CallShapeError(`"${key}" must be a whole number ≥ 0; got ${JSON.stringify(v)}.`);
  return n;
}

/** Runs LLM tool calls against ToolHub (see the module comment). */
export class ToolCallExecutor {
  private readonly o: Required<Omit<ExecutorOptions, 'loaded' | 'rememberSearches'>>;
  /** This agent's search → tool memory; undefined when `rememberSearches` is false. */
  readonly searches: SearchMemory | undefined;

  constructor(
    private readonly api: ToolHubApi,
    private readonly options: ExecutorOptions = {},
  ) {
    this.o = {
      maxResultChars: options.maxResultChars ?? 16_000,
      searchLimit: options.searchLimit ?? 8,
      maxSearchLimit: options.maxSearchLimit ?? 25,
      explainSearch: options.explainSearch ?? false,
    };
    const remember = options.rememberSearches ?? true;
    this.searches = remember === false ? undefined : new SearchMemory(remember === true ? {} : remember);
  }

  /** Executes one call; never throws (failures are `isError` results). */
  async execute(call: ToolCall, callOptions?: CallOptions): Promise<ToolCallResult> {
    const name = typeof call?.name === 'string' ? call.name.trim() : '';
    try {
      const args = parseArguments(call.arguments);
      switch (name) {
        case 'tool_list':
          return await this.list(args, callOptions);
        case 'tool_info':
          return await this.info(args, callOptions);
        case 'tool_run':
          return await this.run(this.refOf(args, 'tool_run'), this.runArguments(args), optionalInt(args, 'timeout_ms'), callOptions);
        case 'tool_search':
          return await this.search(args, callOptions);
        case 'tool_start':
          return await this.startRun(this.refOf(args, 'tool_start'), this.runArguments(args), optionalInt(args, 'timeout_ms'), callOptions);
        case 'tool_result':
          return await this.runResult(args, callOptions);
        default:
          return await this.direct(name, args, callOptions);
      }
    } catch (err) {
      return this.failure(name, err);
    }
  }

  private async list(args: Args, co?: CallOptions): Promise<ToolCallResult> {
    const provider = optionalString(args, 'provider');
    const recursive = args.recursive === true || args.recursive === 'true';
    const res = await this.api.listTools({ provider, path: optionalString(args, 'path'), recursive }, co);
    return { content: formatListing(res, provider === ''), isError: false };
  }

  private async info(args: Args, co?: CallOptions): Promise<ToolCallResult> {
    const ref = this.refOf(args, 'tool_info');
    const res = await this.api.getToolInfo(ref, co);
    if (!res.tool) throw new Error(`GetToolInfo answered without a tool for ${toolId(ref.provider, ref.name)}`);
    const loaded = this.options.loaded?.load(res.tool);
    return { content: truncate(formatInfo(res.tool, loaded?.exposed ? loaded.exposedName : undefined), this.o.maxResultChars), isError: false };
  }

  private async run(ref: ToolRef, args: Args, timeoutMs: number, co?: CallOptions): Promise<ToolCallResult> {
    const id = toolId(ref.provider, ref.name);
    const searchId = this.searches?.searchIdFor(id) ?? '';
    const res = await this.api.runTool({ provider: ref.provider, name: ref.name, arguments: args, timeoutMs, searchId }, co);
    if (searchId && res.status === RunStatus.RUN_STATUS_OK) this.searches?.consumed(id, searchId);
    const loaded = this.options.loaded;
    if (loaded) {
      const exposed = loaded.names.register(ref.provider, ref.name);
      loaded.recordRun(exposed);
    }
    return formatRun(res, id, this.o.maxResultChars);
  }

  private async startRun(ref: ToolRef, args: Args, timeoutMs: number, co?: CallOptions): Promise<ToolCallResult> {
    if (!this.api.startRun) throw new CallShapeError('tool_start is not available with this client; use tool_run.');
    const id = toolId(ref.provider, ref.name);
    const { run } = await this.api.startRun({ provider: ref.provider, name: ref.name, arguments: args, timeoutMs, searchId: this.searches?.searchIdFor(id) ?? '' }, co);
    return { content: formatRunStarted(run!), isError: false };
  }

  private async runResult(args: Args, co?: CallOptions): Promise<ToolCallResult> {
    const runId = optionalString(args, 'run_id');
    if (!runId) throw new CallShapeError('"run_id" is required: the run_id tool_start answered, e.g. {"run_id":"run_…","wait_s":30}.');
    if (!this.api.getRun) throw new CallShapeError('tool_result is not available with this client.');
    const waitS = Math.min(Math.max(optionalInt(args, 'wait_s'), 0), 60);
    let run: RunInfo | undefined;
    if (waitS > 0 && this.api.watchRun) {
      // Follow the run until it ends or the wait is over; then read it as it is.
      const stop = new AbortController();
      const timer = setTimeout(() => stop.abort(), waitS * 1000);
      try {
        for await (const u of this.api.watchRun(runId, { ...co, deadlineMs: waitS * 1000 + 5000, signal: co?.signal ? AbortSignal.any([co.signal, stop.signal]) : stop.signal })) {
          run = u.run;
          if (u.final) break;
        }
      } catch (err) {
        if (!stop.signal.aborted) throw err;
      } finally {
        clearTimeout(timer);
      }
    }
    if (!run || !isEnded(run)) run = (await this.api.getRun(runId, co)).run;
    return formatRunResult(run!, this.o.maxResultChars);
  }

  private async search(args: Args, co?: CallOptions): Promise<ToolCallResult> {
    let queries = args.queries ?? args.query;
    if (typeof queries === 'string') queries = [queries];
    if (!Array.isArray(queries) || queries.length === 0 || !queries.every((q) => typeof q === 'string' && q.trim() !== '')) {
      throw new CallShapeError('"queries" must be a list of 1 to 5 short non-empty strings, e.g. {"queries":["read file","count words"]}.');
    }
    if (queries.length > 5) throw new CallShapeError(`"queries" holds ${queries.length} entries; send at most 5 per call.`);
    const limit = Math.min(optionalInt(args, 'limit') || this.o.searchLimit, this.o.maxSearchLimit);
    const res = await this.api.searchTools(
      { queries: queries.map((q: string) => q.trim()), provider: optionalString(args, 'provider'), path: optionalString(args, 'path'), limit, explain: this.o.explainSearch },
      co,
    );
    this.searches?.rememberSearch(res);
    return { content: formatSearch(res), isError: false };
  }

  private async direct(name: string, args: Args, co?: CallOptions): Promise<ToolCallResult> {
    const ref = this.options.loaded?.resolve(name) ?? parseExposedToolName(name);
    if (!ref) {
      const exposed = this.options.loaded?.tools().map((t) => t.name) ?? [...META_TOOL_NAMES];
      return {
        content: `error not_found: there is no function ${JSON.stringify(name)}. Functions: ${exposed.join(', ')}. Other ToolHub tools run through tool_run {"provider":"...","name":"...","arguments":{...}}; find them with tool_search.`,
        isError: true,
      };
    }
    return this.run(ref, args, 0, co);
  }

  private runArguments(args: Args): Args {
    const raw = args.arguments;
    if (raw === undefined || raw === null || raw === '') return {};
    if (typeof raw === 'string') {
      try {
        const parsed: unknown = JSON.parse(raw);
        if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Args;
      } catch {
        // fall through to the error below
      }
    }
    if (typeof raw !== 'object' || Array.isArray(raw)) throw new CallShapeError('"arguments" must be a JSON object holding the tool\'s own arguments, e.g. {"path":"notes.txt"}.');
    return raw as Args;
  }

  /** provider + name from `{provider, name}`, `{id}`, `{name: "provider:name"}` or `{name: "provider__name"}`. */
  private refOf(args: Args, meta: 'tool_info' | 'tool_run' | 'tool_start'): ToolRef {
    const provider = optionalString(args, 'provider');
    const name = optionalString(args, 'name');
    const id = optionalString(args, 'id');
    const fromId = parseToolId(id || name);
    if (fromId) return fromId;
    if (provider && name) return { provider, name };
    if (!provider && name) {
      const resolved = this.options.loaded?.resolve(name) ?? parseExposedToolName(name);
      if (resolved) return resolved;
    }
    const example = meta === 'tool_info' ? '{"provider":"local","name":"file_read"}' : '{"provider":"local","name":"file_read","arguments":{"path":"a.txt"}}';
    throw new CallShapeError(`${meta} needs "provider" and "name" (or "name" as the id "provider:name"), e.g. ${example}. tool_search and tool_list show ids.`);
  }

  private failure(name: string, err: unknown): ToolCallResult {
    if (err instanceof CallShapeError) return { content: `error invalid_argument: ${isMetaToolName(name) ? `${name}: ` : ''}${err.message}`, isError: true };
    const callErr = findToolHubCallError(err);
    if (callErr) {
      let advice: string | undefined;
      if (name === 'tool_search' && (callErr.grpcStatus === GrpcStatus.UNIMPLEMENTED || callErr.code === 'unavailable') && !callErr.message.includes('tool_list')) {
        advice = 'Browse with tool_list instead.';
      }
      else if (callErr.code === 'invalid_argument' && callErr.method === 'RunTool') advice = 'Check the arguments against tool_info and call again.';
      return { content: truncate(formatFailure(callErr.code, callErr.message, callErr.info, advice), this.o.maxResultChars), isError: true };
    }
    const e = toToolHubError(err, `${name || 'the call'} failed inside the agent kit`);
    return { content: formatFailure(e.code, e.message, undefined), isError: true };
  }
}
