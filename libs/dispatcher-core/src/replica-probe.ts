/**
 * Notices within about a second that an adapter replica holding in-flight runs is gone, instead
 * of after the heartbeat TTL: every `intervalMs` each such replica is asked on its own subject
 * (served by that replica alone). When its NATS connection is gone the server answers "no
 * responders" at once; a replica that is there but frozen (SIGSTOP, a blocked event loop) is
 * declared gone after `maxMissed` probes in a row went unanswered.
 *
 * Only replicas that have answered a probe once are judged by "no responders": an adapter built
 * on an older SDK serves no probe subject, and must not look dead for that.
 */
import { type Bus, BusError } from '@toolhub/bus';
import { replicaSubject } from '@toolhub/contracts';

import type { InflightTracker } from './inflight';

/** Options of {@link ReplicaProbe}. */
export interface ReplicaProbeOptions {
  /** Time between rounds of probes. @default 500 */
  intervalMs?: number;
  /** How long one probe waits for its answer. @default 1500 */
  timeoutMs?: number;
  /** Unanswered probes in a row before a frozen replica counts as gone. @default 2 */
  maxMissed?: number;
  /** Runs no replica acknowledged for this long fail (retried where safe); 0 never. @default 3000 */
  ackTimeoutMs?: number;
  /**
   * Every live replica (from heartbeats): probed too, at most 100 per round, so a replica is known
   * to answer probes before it holds a call when it dies (fast tools hold calls for microseconds).
   */
  known?: () => Array<[string, string]>;
  /** Runs failed because no replica acknowledged them. */
  onUnacknowledged?: (provider: string, failed: number) => void;
  /** The bus connection was lost with calls in flight; they were failed (`failed` of them). */
  onBusLost?: (failed: number, detail: string) => void;
  /** A replica was found gone; its in-flight calls were failed (`failed` of them). */
  onGone?: (provider: string, instanceId: string, reason: string, failed: number) => void;
}

const EMPTY = new Uint8Array(0);

export class ReplicaProbe {
  private readonly timer: NodeJS.Timeout;
  private readonly missed = new Map<string, number>();
  private readonly probing = new Set<string>();
  /** Replicas known to serve the probe subject. */
  private readonly capable = new Set<string>();

  constructor(
    private readonly bus: Bus,
    private readonly inflight: InflightTracker,
    private readonly options: ReplicaProbeOptions = {},
  ) {
    this.timer = setInterval(() => this.round(), options.intervalMs ?? 500);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
  }

  private round(): void {
    // While NATS itself is down every probe would fail; the bus state says so, new runs fail fast,
    // and the runs in flight cannot get their answers: fail them now rather than at the reconnect.
    const connection = this.bus.connection?.();
    if (connection && !connection.connected) {
      const failed = this.inflight.failAll(connection.detail);
      if (failed > 0) this.options.onBusLost?.(failed, connection.detail);
      return;
    }
    const ackTimeoutMs = this.options.ackTimeoutMs ?? 3000;
    if (ackTimeoutMs > 0) for (const [provider, n] of this.inflight.failUnacknowledged(ackTimeoutMs)) this.options.onUnacknowledged?.(provider, n);
    const targets = new Map<string, [string, string]>();
    for (const r of this.inflight.heldReplicas()) targets.set(`${r[0]}\u0000${r[1]}`, r);
    for (const r of (this.options.known?.() ?? []).slice(0, 100)) targets.set(`${r[0]}\u0000${r[1]}`, r);
    for (const [provider, instanceId] of targets.values()) {
      const key = `${provider}\u0000${instanceId}`;
      if (this.probing.has(key)) continue;
      let subject: string;
      try {
        subject = replicaSubject(provider, instanceId);
      } catch {
        continue; // An instance id that is no subject token is not probed.
      }
      this.probing.add(key);
      this.bus
        .request(subject, EMPTY, { timeoutMs: this.options.timeoutMs ?? 1500 })
        .then(
          () => {
            this.missed.delete(key);
            this.capable.add(key);
          },
          (err: unknown) => {
            if (err instanceof BusError && err.code === 'no_responders') {
              if (!this.capable.has(key)) return;
              this.gone(provider, instanceId, 'its NATS connection is gone (no responders)');
            } else if (err instanceof BusError && err.code === 'timeout') {
              const n = (this.missed.get(key) ?? 0) + 1;
              this.missed.set(key, n);
              if (n >= (this.options.maxMissed ?? 2)) this.gone(provider, instanceId, `it did not answer ${n} liveness probes in a row`);
            }
          },
        )
        .finally(() => this.probing.delete(key));
    }
  }

  private gone(provider: string, instanceId: string, reason: string): void {
    this.missed.delete(`${provider}\u0000${instanceId}`);
    this.capable.delete(`${provider}\u0000${instanceId}`);
    const failed = this.inflight.replicaGone(provider, instanceId, reason);
    this.options.onGone?.(provider, instanceId, reason, failed);
  }
}
