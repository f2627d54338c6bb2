/**
 * Readiness while an app is still starting: its health and metrics endpoints answer from the first
 * moment (liveness SERVING, so an orchestrator does not kill a process that is only waiting for
 * NATS), and readiness says what it waits for until {@link StartupProgress.done}.
 */
import type { ReadinessCheck } from './readiness';

export class StartupProgress {
  private waitingFor: string | undefined = 'starting';

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
