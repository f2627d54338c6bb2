/**
 * Fan-out of run changes to WatchRun streams. A worker publishes each change on
 * `toolhub.v1.runs.updates` (core NATS, or the in-process bus); every dispatcher hears them and
 * hands each to the streams watching that run on it. Not durable: a watcher also re-reads the
 * store now and then, so a missed update costs a delay, never a hang.
 */
import type { Bus, Subscription } from '@toolhub/bus';
import { RUNS_UPDATES_SUBJECT, WatchRunResponse } from '@toolhub/contracts';

export type RunUpdateListener = (update: WatchRunResponse) => void;

export class RunUpdates {
  private readonly listeners = new Map<string, Set<RunUpdateListener>>();
  private sub: Subscription | undefined;

  constructor(
    private readonly bus: Bus,
    private readonly onError: (err: unknown) => void,
  ) {}

  async listen(): Promise<void> {
    this.sub = await this.bus.subscribe(RUNS_UPDATES_SUBJECT, (msg) => {
      let update: WatchRunResponse;
      try {
        update = WatchRunResponse.decode(msg.data);
      } catch (err) {
        this.onError(err);
        return;
      }
      const id = update.run?.runId;
      if (id) for (const l of this.listeners.get(id) ?? []) l(update);
    });
  }

  /** Publishes a change (best effort: watchers also poll the store). */
  publish(update: WatchRunResponse): void {
    try {
      this.bus.publish(RUNS_UPDATES_SUBJECT, WatchRunResponse.encode(update).finish());
    } catch (err) {
      this.onError(err);
    }
  }

  /** Calls `listener` with every change of run `id` until the returned function is called. */
  watch(id: string, listener: RunUpdateListener): () => void {
    let set = this.listeners.get(id);
    if (!set) this.listeners.set(id, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(id);
    };
  }

  get watchers(): number {
    let n = 0;
    for (const s of this.listeners.values()) n += s.size;
    return n;
  }

  async close(): Promise<void> {
    await this.sub?.close();
  }
}
