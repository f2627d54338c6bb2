/**
 * Which providers exist right now: built from the heartbeats every adapter replica publishes.
 * Used to name the known providers in errors and to answer ListProviders.
 */
import type { Bus, Subscription } from '@toolhub/bus';
import {
  ADAPTER_DISCOVERY_SUBJECT,
  ADAPTER_HEARTBEAT_SUBJECT,
  ADAPTER_HEARTBEAT_WILDCARD,
  type AdapterHealthResponse,
  checkContractCompatibility,
  type ContractCompatibility,
  parseContractVersion,
  ProviderBindingGuard,
  type ProviderBindingLogger,
  type ProviderStatus,
  readHeartbeat,
} from '@toolhub/contracts';

interface Replica {
  health: AdapterHealthResponse;
  lastSeen: number;
  /** Checked once per heartbeat: a replica of another contract major is listed but never served. */
  contract: ContractCompatibility;
}

/** Newest of the given contract versions (by major, minor, patch). */
function newest(versions: string[]): string {
  const key = (v: string) => {
    const p = parseContractVersion(v);
    return p ? p.major * 1e12 + p.minor * 1e6 + p.patch : -1;
  };
  return versions.reduce((a, b) => (key(b) > key(a) ? b : a), versions[0] ?? '');
}

/** Called when a replica misses heartbeats for longer than the TTL (it died or is cut off). */
export type ReplicaGoneListener = (provider: string, instanceId: string, reason: string) => void;
/** Called when a replica says it is stopping: it takes no new calls and finishes the ones it holds. */
export type ReplicaStoppingListener = (provider: string, instanceId: string) => void;

export class ProviderDirectory {
  private readonly replicas = new Map<string, Map<string, Replica>>();
  /** Providers of which a refused replica was ever heard ({@link route} looks no further for the others). */
  private readonly refusedSeen = new Set<string>();
  /** Round-robin position per provider for {@link route}. */
  private readonly turns = new Map<string, number>();
  private readonly goneListeners: ReplicaGoneListener[] = [];
  private readonly stoppingListeners: ReplicaStoppingListener[] = [];
  private subscriptions: Subscription[] = [];
  private sweepTimer?: NodeJS.Timeout;
  /** Refuses heartbeats whose subject names another provider than their payload; its counts feed the metrics. */
  readonly binding: ProviderBindingGuard;

  private constructor(
    private readonly bus: Bus,
    private readonly ttlMs: number,
    log: ProviderBindingLogger,
  ) {
    this.binding = new ProviderBindingGuard(log);
  }

  /**
   * Subscribes to heartbeats (each provider's own subject, bound to its adapter's NATS user, and
   * the legacy shared one) and asks every adapter to announce itself now.
   */
  static async start(bus: Bus, ttlMs: number, log: ProviderBindingLogger = { warn() {} }): Promise<ProviderDirectory> {
    const dir = new ProviderDirectory(bus, ttlMs, log);
    const onBeat = (msg: { subject: string; data: Uint8Array }) => {
      // A malformed heartbeat must not stop discovery; the sender shows up as missing.
      const read = readHeartbeat(msg.subject, msg.data);
      if (read && dir.binding.accept('heartbeat', read.binding, read.health.provider, msg.subject)) dir.record(read.health);
    };
    dir.subscriptions = [await bus.subscribe(ADAPTER_HEARTBEAT_WILDCARD, onBeat), await bus.subscribe(ADAPTER_HEARTBEAT_SUBJECT, onBeat)];
    bus.publish(ADAPTER_DISCOVERY_SUBJECT, new Uint8Array());
    // A replica killed with SIGKILL says nothing: missing heartbeats are how we learn it is gone.
    dir.sweepTimer = setInterval(() => dir.sweep(), Math.max(50, Math.floor(ttlMs / 3)));
    dir.sweepTimer.unref();
    return dir;
  }

  /** Every live replica as `[provider, instanceId]`. */
  instances(): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    for (const [provider, byInstance] of this.replicas) for (const id of byInstance.keys()) out.push([provider, id]);
    return out;
  }

  onReplicaGone(listener: ReplicaGoneListener): void {
    this.goneListeners.push(listener);
  }

  onReplicaStopping(listener: ReplicaStoppingListener): void {
    this.stoppingListeners.push(listener);
  }

  /** When each provider's last replica went away (stopping or silent past the TTL), unix ms. */
  private readonly lostAt = new Map<string, number>();

  /** Since when `provider` has had no replica, if it had one before; undefined when never seen or live. */
  downSince(provider: string, now = Date.now()): number | undefined {
    if (this.has(provider, now)) return undefined;
    return this.lostAt.get(provider);
  }

  /** Forgets replicas not heard from within the TTL. */
  sweep(now = Date.now()): void {
    for (const [provider, byInstance] of this.replicas) {
      for (const [id, r] of byInstance) {
        if (now - r.lastSeen > this.ttlMs) {
          byInstance.delete(id);
          if (byInstance.size === 0) this.lostAt.set(provider, r.lastSeen + this.ttlMs);
          this.emitGone(provider, id, `no heartbeat for ${now - r.lastSeen} ms`);
        }
      }
    }
  }

  private emitGone(provider: string, instanceId: string, reason: string): void {
    for (const l of this.goneListeners) l(provider, instanceId, reason);
  }

  /** Records one heartbeat; a replica that says it is stopping is dropped from the directory at once. */
  record(health: AdapterHealthResponse, now = Date.now()): void {
    let byInstance = this.replicas.get(health.provider);
    if (!byInstance) this.replicas.set(health.provider, (byInstance = new Map()));
    if (!health.healthy && health.detail === 'stopping') {
      if (byInstance.delete(health.instanceId)) for (const l of this.stoppingListeners) l(health.provider, health.instanceId);
      if (byInstance.size === 0) this.lostAt.set(health.provider, now);
    } else {
      const contract = checkContractCompatibility(health.contractVersion);
      if (!contract.compatible) this.refusedSeen.add(health.provider);
      byInstance.set(health.instanceId, { health, lastSeen: now, contract });
    }
  }

  /**
   * Why `provider` cannot be served although replicas of it are alive: every live one speaks
   * another contract major. Undefined when a compatible replica serves it, or none is alive.
   */
  refusal(provider: string, now = Date.now()): string | undefined {
    const live = [...(this.replicas.get(provider)?.values() ?? [])].filter((r) => now - r.lastSeen <= this.ttlMs);
    if (live.length === 0 || live.some((r) => r.contract.compatible)) return undefined;
    return `Provider ${JSON.stringify(provider)} is ${live[0]!.contract.reason}`;
  }

  /**
   * The replica a call to `provider` must go to, while some of its live replicas are refused
   * (another contract major): the accepted ones in turn. Undefined otherwise — every replica is
   * accepted (the queue group picks), or none is alive or accepted (the call is refused before).
   */
  route(provider: string, now = Date.now()): string | undefined {
    // Every call asks: the common case (no refused replica ever heard) costs one Set lookup.
    if (!this.refusedSeen.has(provider)) return undefined;
    const live = [...(this.replicas.get(provider)?.values() ?? [])].filter((r) => now - r.lastSeen <= this.ttlMs);
    if (!live.some((r) => !r.contract.compatible)) return undefined;
    const accepted = live.filter((r) => r.contract.compatible);
    if (accepted.length === 0) return undefined;
    const turn = (this.turns.get(provider) ?? 0) + 1;
    this.turns.set(provider, turn);
    return accepted[turn % accepted.length]!.health.instanceId;
  }

  /** Providers with at least one live replica of a compatible contract, sorted. */
  known(now = Date.now()): string[] {
    return this.status(now)
      .filter((p) => !p.incompatible)
      .map((p) => p.provider);
  }

  /** Has `provider` been seen alive recently? */
  has(provider: string, now = Date.now()): boolean {
    return this.known(now).includes(provider);
  }

  status(now = Date.now()): ProviderStatus[] {
    const out: ProviderStatus[] = [];
    for (const [provider, byInstance] of this.replicas) {
      const live = [...byInstance.values()].filter((r) => now - r.lastSeen <= this.ttlMs);
      if (live.length === 0) continue;
      const serving = live.filter((r) => r.contract.compatible);
      const refused = live.length - serving.length;
      const shown = serving.length > 0 ? serving : live;
      const healthy = serving.filter((r) => r.health.healthy);
      const refusedNote = refused > 0 ? ` (${refused} replica${refused === 1 ? '' : 's'} ${live.find((r) => !r.contract.compatible)!.contract.reason})` : '';
      out.push({
        provider,
        healthy: healthy.length > 0,
        toolCount: Math.max(...shown.map((r) => r.health.toolCount)),
        replicas: serving.length,
        detail:
          serving.length === 0
            ? `${live[0]!.contract.reason}`
            : (healthy.length > 0 ? 'ok' : (serving[0]?.health.detail ?? 'unhealthy')) + refusedNote,
        contractVersion: newest(shown.map((r) => r.contract.announced)),
        sdkVersion: [...new Set(shown.map((r) => r.health.sdkVersion).filter((v) => v !== ''))].sort().join(', '),
        incompatible: serving.length === 0,
        refusedReplicas: refused,
        // Heartbeats carry only the count; the items with reasons come from the registry.
        quarantined: [],
        quarantinedCount: Math.max(...shown.map((r) => r.health.quarantinedCount ?? 0)),
      });
    }
    return out.sort((a, b) => a.provider.localeCompare(b.provider));
  }

  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    await Promise.all(this.subscriptions.map((s) => s.close()));
  }
}
