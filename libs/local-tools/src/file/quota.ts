/**
 * The file root's quota: most bytes in regular files and most entries (files and folders) below the
 * root. Without it one agent filled 485 MiB in 20 s. Usage is measured by walking the root (links
 * not followed) at most once per `rescanMs`, and kept current between walks by the writes
 * themselves; writes are serialised so that two of them cannot both squeeze under the limit.
 */
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { ToolHubError } from '@toolhub/contracts';

/** Usage of the root. */
export interface RootUsage {
  bytes: number;
  entries: number;
}

/** What one write adds. */
export interface UsageChange {
  /** New size minus old size of the file, in bytes (negative when it shrinks). */
  bytes: number;
  /** Files and folders it creates. */
  entries: number;
}

/** Measures and guards the usage of one root. */
export class RootQuota {
  private usage: RootUsage | undefined;
  private measuredAt = 0;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    readonly maxBytes: number,
    readonly maxEntries: number,
    private readonly rescanMs = 30_000,
  ) {}

  /**
   * Runs `write` alone (no other guarded write at the same time) after checking that `change`
   * fits; `write` returns the change it really made, which is added to the usage.
   * @throws ToolHubError failed_precondition when the change would exceed a limit.
   */
  guard<T>(root: string, change: UsageChange, shown: string, write: () => Promise<{ value: T; change: UsageChange }>): Promise<T> {
    const run = async (): Promise<T> => {
      const usage = await this.current(root);
      if (change.bytes > 0 && usage.bytes + change.bytes > this.maxBytes) {
        throw new ToolHubError(
          'failed_precondition',
          `Writing '${shown}' would bring the tool root to ${usage.bytes + change.bytes} bytes, over its quota of ${this.maxBytes} bytes (${usage.bytes} used). Write less, or ask an operator to free space; retrying will not help.`,
        );
      }
      if (change.entries > 0 && usage.entries + change.entries > this.maxEntries) {
        throw new ToolHubError(
          'failed_precondition',
          `Creating '${shown}' would bring the tool root to ${usage.entries + change.entries} files and folders, over its quota of ${this.maxEntries}. Write into an existing file, or ask an operator to free space; retrying will not help.`,
        );
      }
      const { value, change: made } = await write();
      usage.bytes = Math.max(0, usage.bytes + made.bytes);
      usage.entries = Math.max(0, usage.entries + made.entries);
      return value;
    };
    const result = this.tail.then(run, run);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** The usage, walked again when the last walk is older than `rescanMs`. */
  async current(root: string): Promise<RootUsage> {
    if (this.usage === undefined || Date.now() - this.measuredAt > this.rescanMs) {
      this.usage = await measure(root);
      this.measuredAt = Date.now();
    }
    return this.usage;
  }
}

/** Bytes of regular files and count of entries below `root` (symbolic links counted, not followed). */
export async function measure(root: string): Promise<RootUsage> {
  const usage: RootUsage = { bytes: 0, entries: 0 };
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue; // Vanished or unreadable meanwhile: nothing to count there.
    }
    for (const name of names) {
      const path = join(dir, name);
      try {
        const info = await lstat(path);
        usage.entries++;
        if (info.isFile()) usage.bytes += info.size;
        else if (info.isDirectory()) pending.push(path);
      } catch {
        // Removed between readdir and lstat.
      }
    }
  }
  return usage;
}
