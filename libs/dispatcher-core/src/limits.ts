/** Per-caller concurrency limit: one runaway agent cannot take every slot of the fleet. */
import { ToolHubError } from '@toolhub/contracts';

export class CallerLimiter {
  private readonly active = new Map<string, number>();

  constructor(private readonly maxPerCaller: number) {}

  /**
   * Takes a slot for `caller` ('' counts as the anonymous caller) and returns its release.
   * @throws ToolHubError rate_limited naming the limit and its value.
   */
  acquire(caller: string): () => void {
    const key = caller || '(anonymous)';
    const n = this.active.get(key) ?? 0;
    if (n >= this.maxPerCaller) {
      throw new ToolHubError(
        'rate_limited',
        `Caller ${JSON.stringify(key)} already has ${n} runs in progress; the limit is ${this.maxPerCaller} concurrent runs per caller ` +
          '(TOOLHUB_MAX_CONCURRENT_PER_CALLER). Wait for some to finish, then retry.',
        { retryAfterMs: 100 },
      );
    }
    this.active.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.active.get(key) ?? 1) - 1;
      if (left <= 0) this.active.delete(key);
      else this.active.set(key, left);
    };
  }
}
