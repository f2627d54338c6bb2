/**
 * The dispatcher's domain logic, independent of gRPC: routes list/info/run to the adapter named by
 * `provider`, bounds every call by the caller's deadline, and turns failures into errors an LLM can
 * act on (unknown provider → the known ones; unknown tool → close names and the parent path).
 */
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AdapterClient } from '@toolhub/adapter-sdk';
import type { Bus } from '@toolhub/bus';
import {
  assertProviderName,
  assertToolName,
  type Category,
  ErrorCode,
  errorCodeToProto,
  type GetToolInfoRequest,
  type GetToolInfoResponse,
  type ListProvidersResponse,
  type ListToolsRequest,
  type ListToolsResponse,
  normalizePath,
  RunStatus,
  type RunToolRequest,
  type RunToolResponse,
  ToolHubError,
  toolId,
} from '@toolhub/contracts';

import { randomUUID } from 'node:crypto';

import { checkArgumentDepth } from './arguments';
import { CallEventPublisher } from './call-events';
import { type DispatcherOptions, type ResolvedDispatcherOptions, withDefaults } from './options';
import { ProviderDirectory } from './providers';

/** Per-call context from the edge. */
export interface CallContext {
  /** Absolute deadline of the caller, epoch ms; Infinity when the caller set none. */
  deadline: number;
  requestId: string;
}

const tracer = trace.getTracer('@toolhub/dispatcher-core');

export class Dispatcher {
  readonly options: ResolvedDispatcherOptions;
  private readonly client: AdapterClient;
  /** Durable `tool.called` events; never blocks or fails a call. */
  readonly callEvents: CallEventPublisher;

  private constructor(
    readonly bus: Bus,
    readonly providers: ProviderDirectory,
    options: ResolvedDispatcherOptions,
  ) {
    this.options = options;
    this.client = new AdapterClient(bus);
    this.callEvents = new CallEventPublisher(bus);
  }

  /** Creates a dispatcher on `bus` and starts provider discovery. */
  static async create(bus: Bus, options: DispatcherOptions = {}): Promise<Dispatcher> {
    const resolved = withDefaults(options);
    return new Dispatcher(bus, await ProviderDirectory.start(bus, resolved.providerTtlMs), resolved);
  }

  async listTools(req: ListToolsRequest, call: CallContext): Promise<ListToolsResponse> {
    if (req.provider === '') {
      const categories: Category[] = this.providers.status().map((p) => ({ path: '', name: p.provider, toolCount: p.toolCount }));
      return {
        categories,
        tools: [],
        hint: categories.length
          ? `These are the providers. Call tool_list with provider set to one of: ${categories.map((c) => c.name).join(', ')}.`
          : 'No provider adapters are running right now; try again shortly.',
      };
    }
    assertProviderName(req.provider);
    const path = normalizePath(req.path);
    const res = await this.guardProvider(req.provider, () =>
      this.client.list(req.provider, path, req.recursive, { timeoutMs: this.metadataTimeout(call), requestId: call.requestId }),
    );
    const first = res.tools[0];
    const hintParts: string[] = [];
    if (first) hintParts.push(`Call tool_info with provider=${JSON.stringify(req.provider)} and name=${JSON.stringify(first.name)} (or another tool above) for its full schema.`);
    if (res.categories[0]) hintParts.push(`Call tool_list with path=${JSON.stringify(res.categories[0].path)} (or another category) to go deeper.`);
    return { categories: res.categories, tools: res.tools, hint: hintParts.join(' ') || 'This category is empty.' };
  }

  async getToolInfo(req: GetToolInfoRequest, call: CallContext): Promise<GetToolInfoResponse> {
    assertProviderName(req.provider);
    assertToolName(req.name);
    const tool = await this.guardProvider(req.provider, () =>
      this.client.info(req.provider, req.name, { timeoutMs: this.metadataTimeout(call), requestId: call.requestId }),
    );
    return { tool };
  }

  async runTool(req: RunToolRequest, call: CallContext): Promise<RunToolResponse> {
    assertProviderName(req.provider);
    assertToolName(req.name);
    const args = req.arguments ?? {};
    const started = Date.now();
    const wanted = Math.min(req.timeoutMs || this.options.defaultRunTimeoutMs, this.options.maxRunTimeoutMs);
    const deadline = Math.min(started + wanted, call.deadline);
    const id = toolId(req.provider, req.name);
    return tracer.startActiveSpan(`dispatcher.run ${id}`, { kind: SpanKind.INTERNAL, attributes: { 'toolhub.tool_id': id } }, context.active(), async (span) => {
      let outcome: { status: string; code: ErrorCode; attempts: number; servedBy: string } = { status: 'internal', code: ErrorCode.ERROR_CODE_INTERNAL, attempts: 1, servedBy: '' };
      try {
        checkArgumentDepth(args, this.options.maxArgumentDepth);
        const res = await this.guardProvider(req.provider, () =>
          this.client.run(
            req.provider,
            { name: req.name, arguments: args, deadlineUnixMs: deadline, idempotencyKey: req.idempotencyKey, caller: req.caller },
            // The bus timeout outlives the adapter's own deadline a little, so the adapter's
            // precise TIMEOUT reply wins over a generic bus timeout.
            { timeoutMs: Math.max(1, deadline - Date.now() + 250), requestId: call.requestId },
          ),
        );
        const toolError = res.status === RunStatus.RUN_STATUS_TOOL_ERROR;
        outcome = toolError
          ? { status: 'tool_error', code: ErrorCode.ERROR_CODE_FAILED, attempts: 1, servedBy: '' }
          : { status: 'ok', code: ErrorCode.ERROR_CODE_UNSPECIFIED, attempts: 1, servedBy: '' };
        return {
          status: toolError ? RunStatus.RUN_STATUS_TOOL_ERROR : RunStatus.RUN_STATUS_OK,
          content: res.content,
          error: toolError
            ? { code: ErrorCode.ERROR_CODE_FAILED, message: res.errorMessage, violations: [], suggestions: [], parentPath: '', fixes: [], retryable: false, retryAfterMs: 0 }
            : undefined,
          fixes: [],
          attempts: 1,
          servedBy: id,
          latencyMs: Date.now() - started,
          structured: res.structured,
        };
      } catch (err) {
        const code = err instanceof ToolHubError ? err.code : 'internal';
        outcome = { status: code, code: errorCodeToProto(code), attempts: 1, servedBy: '' };
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        throw err;
      } finally {
        span.end();
        this.callEvents.emit({
          eventId: randomUUID(),
          toolId: id,
          provider: req.provider,
          name: req.name,
          status: outcome.status,
          errorCode: outcome.code,
          latencyMs: Date.now() - started,
          attempts: outcome.attempts,
          fallbackUsed: outcome.servedBy,
          caller: req.caller,
          timestampUnixMs: started,
        });
      }
    });
  }

  listProviders(): ListProvidersResponse {
    return { providers: this.providers.status() };
  }

  async close(): Promise<void> {
    await this.callEvents.close();
    await this.providers.close();
  }

  private metadataTimeout(call: CallContext): number {
    const remaining = call.deadline - Date.now();
    if (remaining <= 0) throw ToolHubError.timeout('The call deadline had already passed when it reached the dispatcher; send it with a longer deadline.');
    return Math.min(this.options.metadataTimeoutMs, remaining);
  }

  /** Turns "nobody serves this provider" into NOT_FOUND naming the providers that do exist. */
  private async guardProvider<T>(provider: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ToolHubError && err.code === 'unavailable' && !this.providers.has(provider)) {
        const known = this.providers.known();
        throw ToolHubError.notFound(
          `Unknown provider ${JSON.stringify(provider)}. ` +
            (known.length ? `Known providers: ${known.join(', ')}. ` : 'No providers are running right now. ') +
            'Call tool_list with no provider to see them.',
          known,
          '',
        );
      }
      throw err;
    }
  }
}
