/**
 * A write-ahead outbox on disk for `tool.called` events: each event is appended before the call's
 * reply goes out (the events of one event-loop turn with one `write(2)`: {@link EventJournal.appendMany}),
 * so an event the agent's reply depends on survives kill -9 of
 * the dispatcher and of NATS. Once JetStream has acknowledged every event of a segment file, the
 * file is deleted; whatever is left when a dispatcher dies is published again by the next
 * dispatcher that opens the same directory (its restart, or a sibling on the same host), at start
 * and every few seconds after ({@link claimOrphans}).
 *
 * Publishing again is safe: JetStream drops a repeated `Nats-Msg-Id` within its window and the
 * registry counts each event id once, whenever it arrives.
 *
 * The disk cannot stop a dispatcher: records are framed with a checksum (outbox/frames.ts), an
 * append that fails (full disk) is cut back off the file and reported to the caller, who keeps the
 * event in memory instead; a torn tail is dropped and a damaged segment moved aside on recovery,
 * its whole records still published.
 *
 * Without `fsync` the data is in the kernel's page cache when `append` returns: it survives the
 * process being killed, not the machine losing power (set `fsync` for that, at a cost per call).
 */
import { closeSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';

import { frameRecords, readSegment } from './outbox/frames';
import { type OwnerRecord, ownerAlive, ownRecord } from './outbox/owner';

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

/** Something wrong with a segment found on recovery; its whole records were recovered all the same. */
export interface OutboxDamage {
  /** The segment file as it was found. */
  readonly file: string;
  /** torn_tail: a last record cut short (kill -9, full disk); corrupt: bad bytes between records; unreadable: the file could not be read. */
  readonly kind: 'torn_tail' | 'corrupt' | 'unreadable';
  readonly bytes: number;
  /** Where a corrupt or unreadable segment was moved (under `<dir>/damaged/`), for a person to look at. */
  readonly movedTo?: string;
  readonly detail?: string;
}

/** Events a previous owner left behind. */
export interface RecoveredEvents {
  /** Directory the events came from (deleted once all are settled). */
  readonly from: string;
  readonly records: Uint8Array[];
  /** What was wrong with its segments (empty when nothing was). */
  readonly damage: OutboxDamage[];
  /** Call once every record is stored in JetStream. */
  settle(): void;
}

/** An append that did not reach the disk (full disk, I/O error); nothing of it stays in the file. */
export class OutboxWriteError extends Error {
  override readonly name = 'OutboxWriteError';
  constructor(
    message: string,
    /** The system error code (ENOSPC, EIO, EDQUOT, …) or 'short_write'. */
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

interface Segment {
  readonly path: string;
  fd: number | undefined;
  /** Bytes of whole records in the file: where a failed append is cut back to. */
  bytes: number;
  written: number;
  unsettled: number;
  readonly openedAt: number;
}

const OWNER_FILE = 'owner.json';
const DAMAGED_DIR = 'damaged';
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
   * that are gone. Returns the journal and the events those owners never saw stored.
   * @throws Error when the directory cannot be created or written (a full disk, permissions).
   */
  static open(options: EventJournalOptions): { journal: EventJournal; recovered: RecoveredEvents[] } {
    mkdirSync(options.dir, { recursive: true });
    const recovered = claimOrphans(options.dir);
    const own = join(options.dir, `dispatcher-${process.pid}-${randomUUID().slice(0, 8)}`);
    mkdirSync(own);
    try {
      writeFileSync(join(own, OWNER_FILE), JSON.stringify(ownRecord()));
    } catch (err) {
      rmSync(own, { recursive: true, force: true });
      throw err;
    }
    return { journal: new EventJournal(own, options), recovered };
  }

  /**
   * Appends one encoded event; it is on disk (page cache, or the device with `fsync`) on return.
   * @throws OutboxWriteError when it could not be written whole (nothing of it is left in the file).
   */
  append(record: Uint8Array): JournalTicket {
    return this.appendMany([record]);
  }

  /**
   * Appends several encoded events with one `write(2)` (the events of one event-loop turn); all of
   * them are on disk on return, in one segment, under the one ticket returned: settle it once per event.
   * @throws OutboxWriteError when they could not be written whole (nothing of them is left in the file).
   */
  appendMany(records: readonly Uint8Array[]): JournalTicket {
    if (this.closed) throw new Error('event journal is closed');
    const seg = this.segment();
    const frame = frameRecords(records);
    let done = 0;
    try {
      // write(2) may write less than asked (a nearly full disk): go on until all is written or it fails.
      while (done < frame.length) {
        const n = writeSync(seg.fd!, frame, done, frame.length - done);
        if (n <= 0) throw new OutboxWriteError('the outbox disk accepted no more bytes', 'short_write');
        done += n;
      }
      if (this.fsync) fsyncSync(seg.fd!);
    } catch (err) {
      this.cutBack(seg);
      if (err instanceof OutboxWriteError) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
      throw new OutboxWriteError(`cannot append to the event outbox ${seg.path}: ${(err as Error).message}`, code, { cause: err });
    }
    seg.bytes += frame.length;
    seg.written += records.length;
    seg.unsettled += records.length;
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

  /**
   * Removes a partly written record from the end of `seg`, so the next append does not follow it.
   * If even that fails the segment is sealed: its reader skips the torn bytes by their checksum.
   */
  private cutBack(seg: Segment): void {
    try {
      ftruncateSync(seg.fd!, seg.bytes);
    } catch {
      this.seal(seg);
    }
  }

  private segment(): Segment {
    const now = Date.now();
    const cur = this.current;
    if (cur && cur.written < this.segmentEvents && now - cur.openedAt < this.segmentAgeMs) return cur;
    if (cur) this.seal(cur);
    const path = join(this.dir, `seg-${String(++this.sequence).padStart(10, '0')}.log`);
    let fd: number;
    try {
      fd = openSync(path, 'a');
    } catch (err) {
      throw new OutboxWriteError(`cannot create the event outbox segment ${path}: ${(err as Error).message}`, (err as NodeJS.ErrnoException).code ?? 'EIO', { cause: err });
    }
    this.current = { path, fd, bytes: 0, written: 0, unsettled: 0, openedAt: now };
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

export { readSegment, type SegmentContents } from './outbox/frames';

/**
 * Takes over the directories under `base` whose owners are gone and reads their events; an atomic
 * rename decides between claimants. Never throws for a damaged or unreadable directory: what can be
 * read is returned, the rest reported in `damage`.
 */
export function claimOrphans(base: string): RecoveredEvents[] {
  const found: RecoveredEvents[] = [];
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return found;
  }
  for (const name of names) {
    if (name === DAMAGED_DIR) continue;
    const dir = join(base, name);
    if (!isOrphan(dir, name)) continue;
    const claimed = join(base, `recovering-${process.pid}-${randomUUID().slice(0, 8)}`);
    try {
      renameSync(dir, claimed);
    } catch {
      continue; // Another dispatcher claimed it first.
    }
    // Now ours: a dispatcher starting while we drain it must see a live owner. On a full disk the
    // owner file may not be written; the claim still holds for this process's life through the rename.
    try {
      writeFileSync(join(claimed, OWNER_FILE), JSON.stringify(ownRecord()));
    } catch {
      // Judged by its name and our pid below until then.
    }
    const records: Uint8Array[] = [];
    const damage: OutboxDamage[] = [];
    let files: string[] = [];
    try {
      files = readdirSync(claimed).filter((f) => SEGMENT.test(f)).sort();
    } catch (err) {
      damage.push({ file: claimed, kind: 'unreadable', bytes: 0, detail: (err as Error).message });
    }
    for (const f of files) {
      const path = join(claimed, f);
      let data: Buffer;
      try {
        data = readFileSync(path);
      } catch (err) {
        damage.push({ file: path, kind: 'unreadable', bytes: 0, movedTo: moveAside(base, name, f, path), detail: (err as Error).message });
        continue;
      }
      const contents = readSegment(data);
      records.push(...contents.records);
      if (contents.corruptBytes > 0) damage.push({ file: path, kind: 'corrupt', bytes: contents.corruptBytes, movedTo: moveAside(base, name, f, path) });
      if (contents.tornTailBytes > 0) damage.push({ file: path, kind: 'torn_tail', bytes: contents.tornTailBytes });
    }
    found.push({ from: claimed, records, damage, settle: () => rmSync(claimed, { recursive: true, force: true }) });
  }
  return found;
}

/** Moves a damaged segment to `<base>/damaged/` for a person to inspect; returns where, if it could. */
function moveAside(base: string, owner: string, file: string, path: string): string | undefined {
  const target = join(base, DAMAGED_DIR, `${owner}-${file}`);
  try {
    mkdirSync(join(base, DAMAGED_DIR), { recursive: true });
    renameSync(path, target);
    return target;
  } catch {
    return undefined; // Left in place; it is deleted with its directory once the records are stored.
  }
}

function isOrphan(dir: string, name: string): boolean {
  let owner: Partial<OwnerRecord>;
  try {
    owner = JSON.parse(readFileSync(join(dir, OWNER_FILE), 'utf8')) as Partial<OwnerRecord>;
  } catch {
    // A claim whose claimant died before finishing, a claimant that could not write its owner file
    // (full disk), or a directory that lost its owner file: judged by the pid in its name. Our own
    // pid there is an earlier run's (a container's pid 1), or our own claim on a full disk, whose
    // events are then read twice: harmless, the stream and the registry drop repeated event ids.
    if (!name.startsWith('recovering-') && !name.startsWith('dispatcher-')) return false;
    const pid = Number(name.split('-')[1]);
    return !Number.isInteger(pid) || pid === process.pid || !ownerAlive({ pid });
  }
  if (owner.host !== hostname()) return false; // Not ours to judge: that host may still be running it.
  return !ownerAlive(owner);
}
