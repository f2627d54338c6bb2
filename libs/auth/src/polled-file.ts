/**
 * A configuration file re-read on an interval: grants and API keys follow their files with it.
 * Polling, not fs.watch: a Kubernetes ConfigMap or Secret update swaps a symlink, which inotify
 * watches miss.
 */

/** What a read of the file gave: its raw text (to tell a change) and the parsed value. */
export interface FileContent<T> {
  text: string;
  value: T;
}

export interface PolledFileOptions {
  /** How often the file is checked for changes. @default 2000 */
  reloadIntervalMs?: number;
  /** Told when a re-read fails; the value in force stays. @default no-op */
  onReloadError?: (err: Error) => void;
}

/** Re-reads a file every `reloadIntervalMs` and hands a changed, valid value to `apply`. */
export class PolledFile<T> {
  private readonly timer: NodeJS.Timeout;

  /**
   * @param read reads and parses the file; throws when it is missing or malformed
   * @param apply takes a changed value; may throw to reject it (the value in force stays)
   * @param lastText the text of the value in force (read once by the caller at start)
   */
  constructor(
    private readonly read: () => FileContent<T>,
    private readonly apply: (value: T) => void,
    private lastText: string,
    private readonly options: PolledFileOptions = {},
  ) {
    this.timer = setInterval(() => this.reload(), options.reloadIntervalMs ?? 2000);
    this.timer.unref();
  }

  /** Re-reads the file now; true when a changed value was applied. */
  reload(): boolean {
    try {
      const src = this.read();
      if (src.text === this.lastText) return false;
      this.apply(src.value);
      this.lastText = src.text;
      return true;
    } catch (err) {
      this.options.onReloadError?.(err as Error);
      return false;
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
