/**
 * The dispatcher's calls to the registry over the bus: search, preload set and tool info (with
 * operator overlays). Same reply convention as adapters (error code header + ErrorInfo body).
 */
import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import { readReply } from '@toolhub/adapter-sdk';
import { type Bus, type Headers, isBusError } from '@toolhub/bus';
import {
  GetCatalogStatusRequest,
  GetCatalogStatusResponse,
  GetPreloadSetRequest,
  GetPreloadSetResponse,
  GetToolRequest,
  GetToolResponse,
  HEADER_DEADLINE,
  type RegisteredTool,
  registrySubject,
  SearchStatus,
  SearchToolsRequest,
  SearchToolsResponse,
  isToolHubError,
  ToolHubError,
} from '@toolhub/contracts';

export class RegistryClient {
  constructor(private readonly bus: Bus) {}

  /** `traceHeaders`: the caller's trace context, sent on explicitly (see grpc-edge `CallContext.traceHeaders`). */
  async search(req: SearchToolsRequest, timeoutMs: number, traceHeaders?: Readonly<Headers>): Promise<SearchToolsResponse> {
    return this.call('search', SearchToolsRequest.encode(req).finish(), timeoutMs, (b) => SearchToolsResponse.decode(b), traceHeaders);
  }

  async preload(req: GetPreloadSetRequest, timeoutMs: number, traceHeaders?: Readonly<Headers>): Promise<GetPreloadSetResponse> {
    return this.call('preload', GetPreloadSetRequest.encode(req).finish(), timeoutMs, (b) => GetPreloadSetResponse.decode(b), traceHeaders);
  }

  /** The registry's view of a tool, or undefined when the registry does not know it. */
  async info(provider: string, name: string, timeoutMs: number, traceHeaders?: Readonly<Headers>): Promise<RegisteredTool | undefined> {
    try {
      const res = await this.call('info', GetToolRequest.encode({ provider, name }).finish(), timeoutMs, (b) => GetToolResponse.decode(b), traceHeaders);
      return res.tool;
    } catch (err) {
      if (isToolHubError(err, 'not_found')) return undefined;
      throw err;
    }
  }

  /** The registry's search mode and why; never throws (an unanswered request is a status too). */
  async searchStatus(timeoutMs: number): Promise<SearchStatus> {
    try {
      const res = await this.call('status', GetCatalogStatusRequest.encode({ provider: '' }).finish(), timeoutMs, (b) => GetCatalogStatusResponse.decode(b));
      return res.search ?? { ...SearchStatus.decode(new Uint8Array()), note: 'The registry did not report its search status (an older registry).' };
    } catch (err) {
      return { ...SearchStatus.decode(new Uint8Array()), note: `The registry did not answer: ${(err as Error).message}` };
    }
  }

  private async call<T>(op: 'search' | 'preload' | 'info' | 'status', data: Uint8Array, timeoutMs: number, decode: (b: Uint8Array) => T, traceHeaders?: Readonly<Headers>): Promise<T> {
    const headers: Headers = { ...traceHeaders, [HEADER_DEADLINE]: String(Date.now() + timeoutMs) };
    // With an async context manager the active span (a child of the caller's) wins; without one
    // the active context is the root one and there is nothing to add.
    const active = context.active();
    if (active !== ROOT_CONTEXT) propagation.inject(active, headers);
    try {
      return readReply(await this.bus.request(registrySubject(op), data, { timeoutMs: Math.max(1, timeoutMs), headers }), decode);
    } catch (err) {
      if (isBusError(err, 'no_responders')) {
        throw new ToolHubError('unavailable', 'The registry is not running, so tool search and the preload set are unavailable right now; use tool_list to browse providers instead.', { cause: err });
      }
      if (isBusError(err, 'timeout')) throw new ToolHubError('timeout', `The registry did not answer within ${timeoutMs} ms.`, { cause: err });
      if (isBusError(err)) throw new ToolHubError('unavailable', 'The message bus is not connected; retry shortly.', { cause: err });
      throw err;
    }
  }
}
