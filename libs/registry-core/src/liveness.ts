/**
 * Which providers have a live adapter replica, from the heartbeats every replica publishes. Search
 * hits of a provider with none are marked unavailable (with since-when) and ranked below every
 * live hit — kept, not hidden, so an agent still learns the tool exists and that it is down.
 */
import { AdapterHealthResponse, type SearchHit, type SearchToolsResponse } from '@toolhub/contracts';

export interface LivenessOptions {
  /** A replica not heard from for this long is gone (3 missed heartbeats of the SDK's 5 s). @default 15000 */
  ttlMs?: number;
  /** After the registry starts, how long to wait for heartbeats before calling a provider unavailable. @default 15000 */
  graceMs?: number;
}

/** What the registry last heard from one adapter replica. */
interface ReplicaBeat {
  seen: number;
  /** The replica's catalog version (hash over its tools' names and versions). */
  catalogVersion: string;
}

export class ProviderLiveness {
  private readonly replicas = new Map<string, Map<string, ReplicaBeat>>();
  /** When each provider's last replica went away (stopping heartbeat or TTL). */
  private readonly lostAt = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly graceMs: number;

  constructor(
    private readonly startedAt: number,
    options: LivenessOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 15_000;
    this.graceMs = options.graceMs ?? 15_000;
  }

  /**
   * Records one heartbeat (an AdapterHealthResponse); malformed ones are ignored.
   * @returns the provider when the beat says a replica is live, else undefined
   */
  onHeartbeat(data: Uint8Array, now = Date.now()): string | undefined {
    let h: AdapterHealthResponse;
    try {
      h = AdapterHealthResponse.decode(data);
    } catch {
      return undefined;
    }
    return this.onHealth(h, now);
  }

  /** Records one decoded heartbeat (see {@link onHeartbeat}). */
  onHealth(h: AdapterHealthResponse, now = Date.now()): string | undefined {
    if (!h.provider || !h.instanceId) return undefined;
    const byInstance = this.replicas.get(h.provider) ?? new Map<string, ReplicaBeat>();
    this.replicas.set(h.provider, byInstance);
    if (!h.healthy && h.detail === 'stopping') {
      byInstance.delete(h.instanceId);
      if (this.liveCount(h.provider, now) === 0) this.lostAt.set(h.provider, now);
      return undefined;
    }
    byInstance.set(h.instanceId, { seen: now, catalogVersion: h.catalogVersion });
    this.lostAt.delete(h.provider);
    return h.provider;
  }

  private liveCount(provider: string, now: number): number {
    return this.liveCatalogVersions(provider, now).length;
  }

  /** True while `provider` has a replica heard from within the TTL (no start-up grace). */
  isLive(provider: string, now = Date.now()): boolean {
    return this.liveCount(provider, now) > 0;
  }

  /** The catalog versions the live replicas of `provider` reported in their last heartbeats. */
  liveCatalogVersions(provider: string, now = Date.now()): string[] {
    const out: string[] = [];
    for (const r of this.replicas.get(provider)?.values() ?? []) if (now - r.seen <= this.ttlMs) out.push(r.catalogVersion);
    return out;
  }

  /** 0 while `provider` has a live replica (or the start-up grace runs), else since when it has none (unix ms). */
  unavailableSince(provider: string, now = Date.now()): number {
    if (this.liveCount(provider, now) > 0) return 0;
    const lost = this.lostAt.get(provider);
    if (lost !== undefined) return lost;
    const seen = [...(this.replicas.get(provider)?.values() ?? [])].map((r) => r.seen);
    if (seen.length > 0) return Math.max(...seen) + this.ttlMs;
    return now - this.startedAt < this.graceMs ? 0 : this.startedAt;
  }

  /** Marks hits of providers without a live replica and moves them below the live ones (order kept within each group). */
  markHits(res: SearchToolsResponse, now = Date.now()): SearchToolsResponse {
    const live: SearchHit[] = [];
    const down: SearchHit[] = [];
    const since = new Map<string, number>();
    for (const hit of res.hits) {
      let s = since.get(hit.provider);
      if (s === undefined) since.set(hit.provider, (s = this.unavailableSince(hit.provider, now)));
      if (s === 0) live.push(hit);
      else down.push({ ...hit, unavailable: true, unavailableSinceUnixMs: s });
    }
    return down.length === 0 ? res : { ...res, hits: [...live, ...down] };
  }
}
