/**
 * Calls an adapter's operations over the bus: the dispatcher's side of the adapter protocol.
 * Injects the active trace context and the deadline into headers, and turns bus failures into
 * wire errors an agent can act on.
 */
import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import { type Bus, type BusReply, type Headers, isBusError } from '@toolhub/bus';
import {
  AdapterHealthRequest,
  AdapterHealthResponse,
  AdapterInfoRequest,
  AdapterInfoResponse,
  AdapterListRequest,
  AdapterListResponse,
  type AdapterOperation,
  AdapterRunRequest,
  AdapterRunResponse,
  adapterInstanceSubject,
  adapterSubject,
  encodeReusing,
  HEADER_DEADLINE,
  HEADER_REQUEST_ID,
  findToolHubError,
  ToolHubError,
  type ToolInfo,
} from '@toolhub/contracts';

import { readReply } from './wire';

export interface CallOptions {
  /** Time budget of this call in milliseconds. */
  timeoutMs: number;
  requestId?: string;
  /** Extra headers, e.g. the run acknowledgement subject. */
  headers?: Headers;
}

/**
 * Which replica a call goes to: an instance id (its own subjects), or undefined for the provider's
 * queue group (any replica). A dispatcher routes by instance only while it refuses some replicas.
 */
export type ReplicaRoute = (provider: string) => string | undefined;

/** Calls adapters by provider name. Errors are always ToolHubError. */
export class AdapterClient {
  constructor(
    private readonly bus: Bus,
    private readonly route?: ReplicaRoute,
  ) {}

  /**
   * Lists a path. A listing larger than one bus message arrives in parts (see list-parts.ts),
   * read here one after the other within the same time budget and joined; a tool that a later
   * part repeats (the catalog changed between parts) is kept once.
   */
  async list(provider: string, path: string, recursive: boolean, options: CallOptions): Promise<AdapterListResponse> {
    const deadline = Date.now() + options.timeoutMs;
    const whole: AdapterListResponse = { categories: [], tools: [] };
    const seen = new Set<string>();
    let offset = 0;
    for (;;) {
      const timeoutMs = Math.max(1, deadline - Date.now());
      const reply = await this.call(provider, 'list', AdapterListRequest.encode({ path, recursive, offset, acceptParts: true }).finish(), { ...options, timeoutMs });
      const part = readReply(reply, (b) => AdapterListResponse.decode(b));
      if (offset === 0) whole.categories = part.categories;
      // Only a tool an earlier part carried is dropped: a listing's own repeats are the adapter's to
      // answer for (the conformance kit checks them), not the client's to hide.
      const earlier = new Set(seen);
      for (const t of part.tools) {
        seen.add(t.name);
        if (!earlier.has(t.name)) whole.tools.push(t);
      }
      if (!part.nextOffset) return whole;
      if (part.nextOffset <= offset) throw ToolHubError.internal(`Adapter ${provider} answered a list part that does not move forward (offset ${offset}, next ${part.nextOffset}).`);
      offset = part.nextOffset;
    }
  }

  async info(provider: string, name: string, options: CallOptions): Promise<ToolInfo> {
    const reply = await this.call(provider, 'info', AdapterInfoRequest.encode({ name }).finish(), options);
    const res = readReply(reply, (b) => AdapterInfoResponse.decode(b));
    if (!res.tool) throw ToolHubError.internal(`Adapter ${provider} answered an info request without a tool`);
    return res.tool;
  }

  /** Runs a tool; the request's deadline is also sent as a header and bounds the bus timeout. */
  async run(provider: string, request: AdapterRunRequest, options: CallOptions): Promise<AdapterRunResponse> {
    const reply = await this.call(provider, 'run', encodeReusing(AdapterRunRequest, request), options);
    return readReply(reply, (b) => AdapterRunResponse.decode(b));
  }

  async health(provider: string, options: CallOptions): Promise<AdapterHealthResponse> {
    const reply = await this.call(provider, 'health', AdapterHealthRequest.encode({}).finish(), options);
    return readReply(reply, (b) => AdapterHealthResponse.decode(b));
  }

  private async call(provider: string, op: AdapterOperation, data: Uint8Array, options: CallOptions): Promise<BusReply> {
    const instance = op === 'health' ? undefined : this.route?.(provider);
    const subject = instance === undefined ? adapterSubject(provider, op) : adapterInstanceSubject(provider, instance, op);
    // Copied key by key: a spread with a computed key (`{ ...h, [K]: v }`) takes V8's slow path,
    // ~2 µs per request against ~0.1 (bench/dispatcher README, 2026-11-29 hot path).
    const headers: Headers = {};
    const given = options.headers;
    if (given) for (const k in given) headers[k] = given[k]!;
    headers[HEADER_DEADLINE] = String(Date.now() + options.timeoutMs);
    if (options.requestId) headers[HEADER_REQUEST_ID] = options.requestId;
    // The active span's context, where an async context manager keeps one (else the caller passed
    // its trace headers in `options.headers`); nothing active, nothing to add.
    const active = context.active();
    if (active !== ROOT_CONTEXT) propagation.inject(active, headers);
    try {
      return await this.bus.request(subject, data, { timeoutMs: Math.max(1, options.timeoutMs), headers });
    } catch (err) {
      throw busFailure(err, provider, op, options.timeoutMs);
    }
  }
}

/** Maps a bus failure to the wire error an agent sees. */
function busFailure(err: unknown, provider: string, op: AdapterOperation, timeoutMs: number): ToolHubError {
  if (isBusError(err, 'no_responders')) {
    return new ToolHubError('unavailable', `No adapter for provider ${JSON.stringify(provider)} is running (no responders on the bus).`, { cause: err, retryable: true });
  }
  if (isBusError(err, 'timeout')) {
    return new ToolHubError('timeout', `Provider ${JSON.stringify(provider)} did not answer the ${op} request within ${timeoutMs} ms.`, { cause: err });
  }
  if (isBusError(err, 'payload_too_large')) {
    return ToolHubError.invalidArgument(`The ${op} request is larger than the bus accepts; send smaller arguments.`, [{ field: 'arguments', message: 'too large' }]);
  }
  if (isBusError(err, 'closed') || isBusError(err, 'connection_failed')) {
    return new ToolHubError('unavailable', 'The message bus is not connected; retry shortly.', { cause: err, retryable: true });
  }
  const found = findToolHubError(err);
  if (found) return found;
  return ToolHubError.internal(`Calling provider ${provider} (${op}) failed: ${(err as Error)?.message ?? String(err)}`, err);
}
