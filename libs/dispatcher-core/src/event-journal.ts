/**
 * A write-ahead outbox on disk for `tool.called` events: each event is appended (one `write(2)`)
 * before the call's reply goes out, so an event the agent's reply depends on survives kill -9 of
 * the dispatcher and of NATS. Once JetStream has acknowledged every event of a segment file, the
 * file is deleted; whatever is left when a dispatcher dies is published again by the next
 * dispatcher that opens the same directory (its restart, or a sibling on the same host).
 *
 * Publishing again is safe: JetStream drops a repeated `Nats-Msg-Id` within its window and the
 * registry counts each event id once, whenever it arrives.
 *
 * Without `fsync` the data is in the kernel's page cache when `append` returns: it survives the
 * process being killed, not the machine losing power (set `fsync` for that, at a cost per call).
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';

/** Options of {@link EventJournal.open}. */
export interface EventJournalOptions {
  /** Parent directory; each dispatcher process owns one sub-directory of it. */
  dir: string;
  /** Events per segment file before a new one starts. @default 4096 */
  segmentEvents?: number;
  /** A segment older than this is closed even when not full, so acknowledged files go away. @default 2000 */
  segmentAgeMs?: number;
  /** fsync after every append (survives power loss; costs a disk flush per call). @default false */
  fsync?: boolean;
}

/** Where an appended event lives; pass it back to {@link EventJournal.settle} once it is stored. */
export type JournalTicket = Segment;

/** Events a previous owner left behind, read back at open. */
export interface RecoveredEvents {
  /** Directory the events came from (deleted once all are settled). */
  readonly from: string;
  readonly records: Uint8Array[];
  /** Call once every record is stored in JetStream. */
  settle(): void;
}

interface Segment {
  readonly path: string;
  fd: number | undefined;
  written: number;
  unsettled: number;
  readonly openedAt: number;
}

const OWNER_FILE = 'owner.json';
const PROCESS_STARTED_MS = Date.now() - process.uptime() * 1000;
const SEGMENT = /^seg-(\d+)\.log$/;

export class EventJournal {
  private current: Segment | undefined;
  private sequence = 0;
  private readonly segmentEvents: number;
  private readonly segmentAgeMs: number;
  private readonly fsync: boolean;
  private closed = false;

  private constructor(
    /** This process's own directory. */
    readonly dir: string,
    options: EventJournalOptions,
  ) {
    this.segmentEvents = options.segmentEvents ?? 4096;
    this.segmentAgeMs = options.segmentAgeMs ?? 2000;
    this.fsync = options.fsync ?? false;
  }

  /**
   * Creates this process's directory under `options.dir` and claims the directories of owners
   * that are gone (a dead process on this host, or an earlier run of a container whose pid was the
   * same). Returns the journal and the events those owners never saw stored.
   * @throws Error when the directory cannot be created or written.
   */
  static open(options: EventJournalOptions): { journal: EventJournal; recovered: RecoveredEvents[] } {
    mkdirSync(options.dir, { recursive: true });
    const recovered = claimOrphans(options.dir);
    const own = join(options.dir, `dispatcher-${process.pid}-${randomUUID().slice(0, 8)}`);
    mkdirSync(own);
    writeFileSync(join(own, OWNER_FILE), JSON.stringify({ pid: process.pid, host: hostname(), startedUnixMs: Date.now() }));
    return { journal: new EventJournal(own, options), recovered };
  }

  /** Appends one encoded event; it is on disk (page cache, or the device with `fsync`) on return. */
  append(record: Uint8Array): JournalTicket {
    if (this.closed) throw new Error('event journal is closed');
    const seg = this.segment();
    const frame = Buffer.allocUnsafe(4 + record.length);
    frame.writeUInt32LE(record.length, 0);
    frame.set(record, 4);
    writeSync(seg.fd!, frame);
    if (this.fsync) fsyncSync(seg.fd!);
    seg.written++;
    seg.unsettled++;
    return seg;
  }

  /** The event of `ticket` is stored in JetStream; its segment goes once all of its events are. */
  settle(ticket: JournalTicket): void {
    ticket.unsettled--;
    this.removeIfDone(ticket);
  }

  /** Closes the open segment; unsettled segments stay on disk for the next owner. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.current) this.seal(this.current);
    this.current = undefined;
    try {
      if (readdirSync(this.dir).every((f) => f === OWNER_FILE)) rmSync(this.dir, { recursive: true, force: true });
    } catch {
      // Already gone.
    }
  }

  private segment(): Segment {
    const now = Date.now();
    const cur = this.current;
    if (cur && cur.written < this.segmentEvents && now - cur.openedAt < this.segmentAgeMs) return cur;
    if (cur) this.seal(cur);
    const path = join(this.dir, `seg-${String(++this.sequence).padStart(10, '0')}.log`);
    this.current = { path, fd: openSync(path, 'a'), written: 0, unsettled: 0, openedAt: now };
    return this.current;
  }

  private seal(seg: Segment): void {
    if (seg.fd !== undefined) closeSync(seg.fd);
    seg.fd = undefined;
    if (this.current === seg) this.current = undefined;
    this.removeIfDone(seg);
  }

  private removeIfDone(seg: Segment): void {
    if (seg.fd !== undefined || seg.unsettled > 0) return;
    try {
      unlinkSync(seg.path);
    } catch {
      // Removed already.
    }
  }
}

/** Reads the length-prefixed records of a segment; a torn last record (kill mid-write) is ignored. */
export function readSegment(data: Buffer): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  while (at + 4 <= data.length) {
    const len = data.readUInt32LE(at);
    if (at + 4 + len > data.length) break;
    out.push(new Uint8Array(data.subarray(at + 4, at + 4 + len)));
    at += 4 + len;
  }
  return out;
}

/** Takes over the directories of owners that are gone; an atomic rename decides between claimants. */
function claimOrphans(base: string): RecoveredEvents[] {
  const found: RecoveredEvents[] = [];
  for (const name of readdirSync(base)) {
    const dir = join(base, name);
    if (!isOrphan(dir, name)) continue;
    const claimed = join(base, `recovering-${process.pid}-${randomUUID().slice(0, 8)}`);
    try {
      renameSync(dir, claimed);
    } catch {
      continue; // Another dispatcher claimed it first.
    }
    // Now ours: a dispatcher starting while we drain it must see a live owner.
    writeFileSync(join(claimed, OWNER_FILE), JSON.stringify({ pid: process.pid, host: hostname(), startedUnixMs: Date.now() }));
    const records = readdirSync(claimed)
      .filter((f) => SEGMENT.test(f))
      .sort()
      .flatMap((f) => readSegment(readFileSync(join(claimed, f))));
    found.push({ from: claimed, records, settle: () => rmSync(claimed, { recursive: true, force: true }) });
  }
  return found;
}

function isOrphan(dir: string, name: string): boolean {
  let owner: { pid?: number; host?: string; startedUnixMs?: number };
  try {
    owner = JSON.parse(readFileSync(join(dir, OWNER_FILE), 'utf8')) as { pid?: number; host?: string; startedUnixMs?: number };
  } catch {
    // A claim whose claimant died before finishing, or a directory that lost its owner file.
    return name.startsWith('recovering-') || name.startsWith('dispatcher-');
  }
  if (owner.host !== hostname()) return false; // Not ours to judge: that host may still be running it.
  if (owner.pid === process.pid) {
    // Our pid: this very process (another publisher in it) if written since we started, else an
    // earlier run in a container, where every run is pid 1.
    return (owner.startedUnixMs ?? 0) < PROCESS_STARTED_MS;
  }
  return !isAlive(owner.pid);
}

function isAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
