/**
 * Readiness while an app is still starting: its health and metrics endpoints answer from the first
 * moment (liveness SERVING, so an orchestrator does not kill a process that is only waiting for
 * NATS), and readiness says what it waits for until {@link StartupProgress.done}.
 */
import { connectNatsBusWithRetry, type NatsBus, type NatsBusOptions } from '@toolhub/bus';

import type { ReadinessCheck } from './readiness';

export class StartupProgress {
  private waitingFor: string | undefined = 'starting';
  private bus: { readonly permissionViolations?: number } | undefined;

  /** The connected bus's refused publishes/subscriptions (0 before it connects): pass this object as startOps' `bus`. */
  get permissionViolations(): number {
    return this.bus?.permissionViolations ?? 0;
  }

  /** The bus start-up connected (see {@link connectNatsForStartup}). */
  connected(bus: { readonly permissionViolations?: number }): void {
    this.bus = bus;
  }

  /** The readiness check to put first in the app's list. */
  readonly check: ReadinessCheck = {
    name: 'startup',
    check: () => {
      if (this.waitingFor !== undefined) throw new Error(this.waitingFor);
    },
  };

  /** What start-up waits for now ("NATS at nats://…: connection refused; retry 3 in 2 s"). */
  waiting(what: string): void {
    this.waitingFor = what;
  }

  /** Start-up is over: readiness is the app's own checks from now on. */
  done(): void {
    this.waitingFor = undefined;
  }
}

interface WarnLogger {
  warn(obj: object, msg?: string): void;
}

/**
 * Connects to NATS for an app's start-up, retrying until it answers (see
 * `connectNatsBusWithRetry`): each failed attempt is a warning and what readiness reports meanwhile.
 */
export async function connectNatsForStartup(options: NatsBusOptions, startup: StartupProgress, log: WarnLogger): Promise<NatsBus> {
  const bus = await connectNatsBusWithRetry(options, {
    onRetry: (attempt, err, waitMs) => {
      startup.waiting(`waiting for NATS: ${err.message} (attempt ${attempt}; next in ${waitMs} ms)`);
      log.warn({ attempt, waitMs, err: err.message }, 'NATS not reachable yet; not ready, retrying');
    },
  });
  startup.connected(bus);
  return bus;
}
