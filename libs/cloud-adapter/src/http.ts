/**
 * The one way the adapter makes HTTP calls: fetch (undici) with redirects followed by hand, each
 * hop checked against the document's host allowlist and against the addresses its host resolves
 * to; the connection re-checks the address it actually dials (DNS rebinding). Responses are read
 * as a stream and cut at a size cap.
 */
import { ToolHubError } from '@toolhub/contracts';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent, fetch, type Response } from 'undici';

import { addressRefusal, resolveHost } from './address';
import { type HostRule, hostLabel, hostOf, matchHost } from './hosts';

/** What one document may reach and how much it may read. */
export interface HttpPolicy {
  /** Names the document in messages. */
  readonly alias: string;
  readonly allowedHosts: readonly HostRule[];
  /** The operator listed the hosts (so loopback and private addresses of those hosts are allowed). */
  readonly explicitHosts: boolean;
  readonly maxRedirects: number;
  readonly maxResponseBytes: number;
  /** Header names (lowercase) and query names carrying credentials: dropped when a redirect leaves the origin. */
  readonly credentialHeaders: readonly string[];
  readonly credentialQuery: readonly string[];
}

/** A request to send. */
export interface HttpRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** A response, its body read up to the cap. */
export interface HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  /** The URL that answered (after redirects). */
  readonly url: URL;
  readonly body: Buffer;
  /** True when the body was longer than maxResponseBytes and was cut. */
  readonly truncated: boolean;
}

/** Resolves a host to its addresses; injectable so tests can play DNS. */
export type HostResolver = (host: string) => Promise<string[]>;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Marks a connection refused by the address check inside the dialer. */
const REFUSED = 'ETOOLHUB_REFUSED_ADDRESS';

/** Calls the hosts of one document, and nothing else. Create once per document; close() at shutdown. */
export class SafeHttpClient {
  private readonly agent: Agent;

  constructor(
    private readonly policy: HttpPolicy,
    private readonly resolver: HostResolver = resolveHost,
  ) {
    this.agent = new Agent({ connect: { lookup: this.guardedLookup }, keepAliveTimeout: 4_000 });
  }

  /**
   * Refuses a URL the document may not call: not http(s), credentials in it, a host outside the
   * allowlist, or a host that resolves to a metadata, link-local, unspecified, or (unless listed
   * explicitly) loopback or private address. `from` is the previous hop of a redirect.
   * @throws ToolHubError permission_denied saying which rule refused it; unavailable when the host does not resolve.
   */
  async checkTarget(url: URL, from?: URL): Promise<void> {
    const what = from ? `follow the redirect from ${hostLabel(from)} to ${hostLabel(url)}` : `call ${hostLabel(url)}`;
    const refuse = (why: string): ToolHubError =>
      new ToolHubError('permission_denied', `Refused to ${what}: ${why}. The cloud adapter only calls the hosts allowed for document ${JSON.stringify(this.policy.alias)}; this is a safety rule, not a problem with the arguments.`);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse(`${url.protocol} URLs are not called`);
    if (url.username || url.password) throw refuse('URLs with credentials are not called');
    if (!matchHost(this.policy.allowedHosts, url)) {
      throw refuse(`host ${hostLabel(url)} is not in the allowed hosts (${this.policy.allowedHosts.map((r) => r.text).join(', ')})`);
    }
    let addresses: string[];
    try {
      addresses = await this.resolver(hostOf(url));
    } catch (err) {
      throw new ToolHubError('unavailable', `Cannot resolve ${hostOf(url)} (document ${JSON.stringify(this.policy.alias)}): ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}. Retry later.`, { cause: err });
    }
    for (const address of addresses) {
      const why = addressRefusal(address, this.policy.explicitHosts);
      if (why) throw refuse(`${hostOf(url)} resolves to ${why}`);
    }
  }

  /**
   * Sends a request, following up to maxRedirects redirects (each checked again; credentials are
   * dropped when a redirect leaves the origin) and reading at most maxResponseBytes of the body.
   * @throws ToolHubError permission_denied (refused target), unavailable (connection failed),
   *   failed (too many or broken redirects); the signal's reason when it aborts.
   */
  async send(request: HttpRequest, signal: AbortSignal): Promise<HttpResponse> {
    let { method, url, body } = request;
    let headers = { ...request.headers };
    let previous: URL | undefined;
    for (let hop = 0; ; hop++) {
      await this.checkTarget(url, previous);
      const res = await this.dial(url, method, headers, body, signal);
      const location = res.headers.get('location');
      if (!REDIRECTS.has(res.status) || location === null) return this.read(res, url, signal);
      await res.body?.cancel().catch(() => undefined);
      if (hop >= this.policy.maxRedirects) {
        throw ToolHubError.failed(`${hostLabel(url)} redirected more than ${this.policy.maxRedirects} times (document ${JSON.stringify(this.policy.alias)}); the API may be misconfigured.`);
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch (err) {
        throw ToolHubError.failed(`${hostLabel(url)} answered HTTP ${res.status} with a Location that is not a URL.`, err);
      }
      // As browsers do: 303 always, and 301/302 after a POST, continue as GET without a body.
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = method === 'HEAD' ? 'HEAD' : 'GET';
        body = undefined;
        delete headers['content-type'];
      }
      if (next.origin !== url.origin) {
        headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !this.policy.credentialHeaders.includes(k) && k !== 'cookie'));
        for (const q of this.policy.credentialQuery) next.searchParams.delete(q);
      }
      previous = url;
      url = next;
    }
  }

  /** Closes idle connections. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  private async dial(url: URL, method: string, headers: Record<string, string>, body: string | undefined, signal: AbortSignal): Promise<Response> {
    try {
      return await fetch(url, { method, headers, body, redirect: 'manual', signal, dispatcher: this.agent });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      const cause = (err as { cause?: NodeJS.ErrnoException }).cause;
      if (cause?.code === REFUSED) throw new ToolHubError('permission_denied', `Refused to call ${hostLabel(url)}: ${cause.message}. The cloud adapter only calls the hosts allowed for document ${JSON.stringify(this.policy.alias)}.`, { cause: err });
      const code = cause?.code ?? (err as Error).message;
      throw new ToolHubError('unavailable', `Could not reach ${hostLabel(url)} (document ${JSON.stringify(this.policy.alias)}): ${code}. The API may be down; retry later.`, { cause: err, retryable: true });
    }
  }

  private async read(res: Response, url: URL, signal: AbortSignal): Promise<HttpResponse> {
    const max = this.policy.maxResponseBytes;
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    if (res.body) {
      const reader = res.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          const chunk = Buffer.from(value);
          if (size + chunk.length > max) {
            chunks.push(chunk.subarray(0, max - size));
            size = max;
            truncated = true;
            break;
          }
          chunks.push(chunk);
          size += chunk.length;
        }
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        throw new ToolHubError('unavailable', `The connection to ${hostLabel(url)} broke while reading the response: ${(err as Error).message}. Retry later.`, { cause: err, retryable: true });
      } finally {
        // Stop the download of whatever is left (an oversized body) and free the connection.
        if (truncated) await reader.cancel().catch(() => undefined);
        reader.releaseLock();
      }
    }
    return { status: res.status, statusText: res.statusText, headers: res.headers as unknown as Headers, url, body: Buffer.concat(chunks, size), truncated };
  }

  /**
   * net.connect's lookup: the address the socket really dials is checked again, so a host that
   * resolved to a public address for checkTarget cannot switch to a refused one (DNS rebinding).
   */
  private readonly guardedLookup = (
    hostname: string,
    options: LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) {
        callback(err, '');
        return;
      }
      for (const a of addresses) {
        const why = addressRefusal(a.address, this.policy.explicitHosts);
        if (why) {
          callback(Object.assign(new Error(`${hostname} resolves to ${why}`), { code: REFUSED }), '');
          return;
        }
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
