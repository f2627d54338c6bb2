/**
 * Progress of one run, sent to the dispatcher only when the run request asked for it (header
 * toolhub-progress-subject). Coalesced so a chatty tool cannot flood the bus: at most one message
 * per `intervalMs` per call; updates in between are merged (the latest progress, total and
 * message win, log lines accumulate up to a cap), and the last one is always delivered — on a
 * timer, or at the latest when the run ends, before its reply.
 */
import type { RunToolProgress } from '@toolhub/contracts';

/** At most one progress message per call per this many ms. */
export const PROGRESS_INTERVAL_MS = 100;
/** Log text kept between two messages; older lines are dropped (and counted) past it. */
export const PROGRESS_LOG_MAX_CHARS = 8 * 1024;
/** One status line or log line is cut to this many characters. */
const MAX_LINE_CHARS = 1024;

/** What a tool reports through `ctx.progress`. */
export interface ProgressUpdate {
  /** Work done so far, in the tool's own units; should increase with every update. */
  progress?: number;
  /** Total work when known. */
  total?: number;
  /** A short status line ("uploading part 3 of 8"). */
  message?: string;
}

/** Coalesces one run's progress and log lines into at most one bus message per interval. */
export class ProgressReporter {
  private pending: RunToolProgress | undefined;
  private droppedLines = 0;
  private lastSentAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(
    private readonly send: (update: RunToolProgress) => void,
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  progress(update: ProgressUpdate): void {
    if (this.ended) return;
    const p = this.take();
    if (isFiniteNumber(update.progress)) p.progress = update.progress;
    if (isFiniteNumber(update.total)) p.total = update.total;
    if (typeof update.message === 'string') p.message = cut(update.message);
    this.schedule();
  }

  log(line: string): void {
    if (this.ended || typeof line !== 'string') return;
    const p = this.take();
    p.log = p.log ? `${p.log}\n${cut(line)}` : cut(line);
    if (p.log.length > PROGRESS_LOG_MAX_CHARS) {
      // Keep the newest lines: they say where the tool is now.
      const lines = p.log.split('\n');
      let length = p.log.length;
      let first = 0;
      while (first < lines.length - 1 && length > PROGRESS_LOG_MAX_CHARS) length -= lines[first++]!.length + 1;
      this.droppedLines += first;
      p.log = lines.slice(first).join('\n');
    }
    this.schedule();
  }

  /** The run ended: sends what is pending now (before the reply), then ignores further reports. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flush();
  }

  private take(): RunToolProgress {
    this.pending ??= { message: '', log: '' };
    return this.pending;
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = this.lastSentAt + this.intervalMs - this.now();
    if (wait <= 0) {
      this.flush();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
    this.timer.unref();
  }

  private flush(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    if (this.droppedLines > 0) {
      p.log = `[${this.droppedLines} earlier log lines dropped]\n${p.log}`;
      this.droppedLines = 0;
    }
    this.lastSentAt = this.now();
    this.send(p);
  }
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

function cut(text: string): string {
  return text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS - 1)}…` : text;
}
