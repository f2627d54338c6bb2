/**
 * Routes the progress updates adapters publish for a call to the door listening to it
 * (`CallContext.onProgress`). One wildcard subscription per dispatcher
 * (`toolhub.v1.progress.*.<dispatcher>.*`), made the first time a call wants progress — a
 * dispatcher whose callers never ask for progress never subscribes — and a listener per attempt
 * of a call, registered before its request leaves and removed when the attempt ends, however it
 * ends. Updates for a call nobody listens to any more are dropped.
 */
import type { SdkLogger } from '@toolhub/adapter-sdk';
import type { Bus, BusMessage, Subscription } from '@toolhub/bus';
import { HEADER_PROGRESS_SUBJECT, progressSubject, progressWildcard, type RunProgress, RunToolProgress } from '@toolhub/contracts';

interface Listener {
  provider: string;
  onProgress: (update: RunProgress) => void;
}

/** One attempt's registration: put `headers` on its run request, call `end()` when it is over. */
export interface ProgressListening {
  readonly headers: Record<string, string>;
  end(): void;
}

export class ProgressRouter {
  private readonly listeners = new Map<string, Listener>();
  private subscription: Promise<Subscription> | undefined;
  private sequence = 0;

  constructor(
    private readonly bus: Bus,
    private readonly dispatcherId: string,
    private readonly log: SdkLogger,
  ) {}

  /** Listeners registered now (attempts running with a listener). */
  get size(): number {
    return this.listeners.size;
  }

  /**
   * Registers `onProgress` for one attempt of a call to `provider`. Resolves once this
   * dispatcher's progress subscription is in place (NATS then orders it before the request), or
   * with no headers when it could not be made: the call then runs without progress.
   */
  async listen(provider: string, onProgress: (update: RunProgress) => void): Promise<ProgressListening> {
    try {
      await (this.subscription ??= this.bus.subscribe(progressWildcard(this.dispatcherId), (msg) => this.deliver(msg)));
    } catch (err) {
      this.subscription = undefined; // the next call tries again
      this.log.warn({ err }, 'could not subscribe to run progress; this call runs without progress updates');
      return { headers: {}, end: () => {} };
    }
    const callId = (++this.sequence).toString(36);
    this.listeners.set(callId, { provider, onProgress });
    return { headers: { [HEADER_PROGRESS_SUBJECT]: progressSubject(provider, this.dispatcherId, callId) }, end: () => void this.listeners.delete(callId) };
  }

  async close(): Promise<void> {
    this.listeners.clear();
    const sub = this.subscription;
    this.subscription = undefined;
    await (await sub?.catch(() => undefined))?.close();
  }

  private deliver(msg: BusMessage): void {
    // toolhub.v1.progress.<provider>.<dispatcher>.<call>
    const tokens = msg.subject.split('.');
    const listener = this.listeners.get(tokens[5] ?? '');
    // Only the provider the call went to may report its progress (NATS binds the token to the adapter's user).
    if (!listener || tokens[3] !== listener.provider) return;
    let update: RunToolProgress;
    try {
      update = RunToolProgress.decode(msg.data);
    } catch {
      return; // a malformed update is not worth failing (or even logging per) call
    }
    const progress: RunProgress = {};
    if (update.progress !== undefined) progress.progress = update.progress;
    if (update.total !== undefined) progress.total = update.total;
    if (update.message) progress.message = update.message;
    if (update.log) progress.log = update.log;
    try {
      listener.onProgress(progress);
    } catch (err) {
      this.log.warn({ err }, 'a progress listener threw; the call goes on');
    }
  }
}
