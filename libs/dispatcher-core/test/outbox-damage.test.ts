import { InProcessBus } from '@toolhub/bus';
import { decodeToolCalledMessage, TOOL_CALLED_FILTERS, ToolCalled } from '@toolhub/contracts';
import { waitFor } from '@toolhub/test-harness';
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

import { CallEventPublisher, type OutboxState } from '../src/call-events';
import { claimOrphans, EventJournal, OutboxWriteError, readSegment } from '../src/event-journal';
import { frameRecord } from '../src/outbox/frames';
import { ownerAlive, ownRecord } from '../src/outbox/owner';
import { testEvent } from './support/events';

const event = (i: number): ToolCalled => testEvent(i);
const encoded = (i: number) => ToolCalled.encode(event(i)).finish();
const ids = (records: Uint8Array[]) => records.map((r) => ToolCalled.decode(r).eventId);
const outboxDir = () => mkdtempSync(join(tmpdir(), 'outbox-damage-'));
/** Marks a journal's directory as left by a dead process (an owner pid that cannot exist). */
const orphan = (journal: EventJournal, pid = 2 ** 22 + 4242) => writeFileSync(join(journal.dir, 'owner.json'), JSON.stringify({ pid, host: hostname() }));

describe('outbox framing', () => {
  it('keeps every whole record around damaged bytes and counts the damage', () => {
    const good = [frameRecord(encoded(0)), frameRecord(encoded(1)), frameRecord(encoded(2))];
    const damaged = Buffer.from(good[1]!);
    damaged[damaged.length - 1]! ^= 0xff; // one flipped byte: the checksum no longer matches
    const torn = frameRecord(encoded(3)).subarray(0, 9);
    const read = readSegment(Buffer.concat([good[0]!, Buffer.from('garbage!'), damaged, good[2]!, torn]));
    expect(ids(read.records)).toEqual(['e-0', 'e-2']);
    expect(read.corruptBytes).toBe(8 + damaged.length);
    expect(read.tornTailBytes).toBe(9);
    expect(read.legacy).toBe(false);
  });

  it('finds the records after a partial record a full disk left in the middle of a segment', () => {
    // The old journal's failure: a short write, then whole records after it.
    const partial = frameRecord(encoded(1)).subarray(0, 20);
    const read = readSegment(Buffer.concat([frameRecord(encoded(0)), partial, frameRecord(encoded(2)), frameRecord(encoded(3))]));
    expect(ids(read.records)).toEqual(['e-0', 'e-2', 'e-3']);
    expect(read.corruptBytes).toBe(20);
  });
});

describe('outbox recovery of damaged segments', () => {
  it('recovers the good records, moves a corrupt segment aside and reports a torn tail', () => {
    const dir = outboxDir();
    const { journal } = EventJournal.open({ dir, segmentEvents: 2 });
    for (let i = 0; i < 4; i++) journal.append(encoded(i));
    const segs = readdirSync(journal.dir).filter((f) => f.startsWith('seg-')).sort();
    expect(segs).toHaveLength(2);
    appendFileSync(join(journal.dir, segs[0]!), Buffer.concat([Buffer.from('xxxx'), frameRecord(encoded(9))])); // damage, then a whole record
    appendFileSync(join(journal.dir, segs[1]!), frameRecord(encoded(10)).subarray(0, 5)); // torn tail
    orphan(journal);

    const [recovered] = claimOrphans(dir);
    expect(ids(recovered!.records).sort()).toEqual(['e-0', 'e-1', 'e-2', 'e-3', 'e-9']);
    const corrupt = recovered!.damage.find((d) => d.kind === 'corrupt')!;
    expect(corrupt.bytes).toBe(4);
    expect(corrupt.movedTo && existsSync(corrupt.movedTo)).toBe(true);
    expect(recovered!.damage.find((d) => d.kind === 'torn_tail')).toMatchObject({ bytes: 5 });
    recovered!.settle();
    // The damaged copy stays for a person to look at; nothing claims it as an outbox.
    expect(readdirSync(dir)).toEqual(['damaged']);
    expect(claimOrphans(dir)).toEqual([]);
  });

  it('starts a publisher on an outbox whose records are not events at all, and publishes the rest', async () => {
    const dir = outboxDir();
    const { journal } = EventJournal.open({ dir });
    journal.append(encoded(0));
    journal.append(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f])); // framed whole, but not a ToolCalled
    journal.append(encoded(1));
    orphan(journal);
    const bus = new InProcessBus();
    const seen: string[] = [];
    const consumer = await bus.consumeEvents({ durable: 't', filterSubjects: [...TOOL_CALLED_FILTERS], handler: async (b) => void seen.push(...b.flatMap((m) => decodeToolCalledMessage(m.subject, m.data).map((e) => e.eventId))) });
    const publisher = new CallEventPublisher(bus, { durability: 'outbox', outboxDir: dir, batchDelayMs: 1, orphanScanMs: 0 });
    expect(await publisher.close(20_000)).toBe(0);
    await waitFor(() => seen.length === 2, { timeoutMs: 20_000, message: 'the two recovered events' });
    await consumer.close();
    await bus.close();
    expect(seen.sort()).toEqual(['e-0', 'e-1']);
    expect(publisher.undecodable).toBe(1);
  });
});

describe('outbox on a disk that refuses writes', () => {
  it('throws OutboxWriteError for an append the disk refuses, and appends again once it can', () => {
    const dir = outboxDir();
    const { journal } = EventJournal.open({ dir, segmentEvents: 1 });
    // The next segment the journal opens is /dev/full: every write fails with ENOSPC.
    symlinkSync('/dev/full', join(journal.dir, 'seg-0000000001.log'));
    let err: unknown;
    try {
      journal.append(encoded(0));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OutboxWriteError);
    expect((err as OutboxWriteError).code).toBe('ENOSPC');
    const ticket = journal.append(encoded(1));
    const next = readdirSync(journal.dir).filter((f) => f.startsWith('seg-') && f !== 'seg-0000000001.log');
    expect(next).toHaveLength(1);
    expect(ids(readSegment(readFileSync(join(journal.dir, next[0]!))).records)).toEqual(['e-1']);
    journal.settle(ticket);
  });

  it('keeps the answer unchanged: record() succeeds, the event is published from memory, and the state is reported once per change', async () => {
    const dir = outboxDir();
    const bus = new InProcessBus();
    const seen: string[] = [];
    const consumer = await bus.consumeEvents({ durable: 't', filterSubjects: [...TOOL_CALLED_FILTERS], handler: async (b) => void seen.push(...b.flatMap((m) => decodeToolCalledMessage(m.subject, m.data).map((e) => e.eventId))) });
    const states: OutboxState[] = [];
    const publisher = new CallEventPublisher(bus, { durability: 'outbox', outboxDir: dir, batchDelayMs: 1, orphanScanMs: 0, onOutboxState: (s) => states.push(s) });
    const own = readdirSync(dir).find((f) => f.startsWith('dispatcher-'))!;
    for (let n = 1; n <= 3; n++) symlinkSync('/dev/full', join(dir, own, `seg-${String(n).padStart(10, '0')}.log`));
    // One turn each: the events of one turn share one append (and one segment).
    for (let i = 0; i < 3; i++) await expect(publisher.record(event(i))).resolves.toBeUndefined();
    expect(publisher.outboxState.healthy).toBe(false);
    expect(publisher.outboxState.detail).toMatch(/ENOSPC/);
    await publisher.record(event(3)); // the fourth segment is a real file again
    expect(publisher.outboxState.healthy).toBe(true);
    expect(states.map((s) => s.healthy)).toEqual([false, true]);
    expect(publisher.outboxWriteFailures).toBe(3);
    expect(await publisher.close(20_000)).toBe(0);
    await waitFor(() => seen.length === 4, { timeoutMs: 20_000, message: 'all four events published' });
    await consumer.close();
    await bus.close();
    expect(seen.sort()).toEqual(['e-0', 'e-1', 'e-2', 'e-3']);
  });

  it('starts without an outbox when its directory cannot be created, and says why', async () => {
    const bus = new InProcessBus();
    const states: OutboxState[] = [];
    const publisher = new CallEventPublisher(bus, { durability: 'outbox', outboxDir: '/dev/full/outbox', orphanScanMs: 0, onOutboxState: (s) => states.push(s) });
    expect(publisher.outboxState).toMatchObject({ healthy: false });
    expect(states[0]!.detail).toMatch(/cannot open the event outbox in \/dev\/full\/outbox/);
    publisher.emit(event(0));
    expect(await publisher.close(20_000)).toBe(0);
    await bus.close();
  });
});

describe('outbox ownership', () => {
  it('takes a zombie owner for dead, which a pid check took for alive', async () => {
    // `sleep 0` exits at once, and its parent (exec'd into `sleep 30`) never reaps it: a zombie.
    const child = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = await new Promise<number>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
      await waitFor(() => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z'), { timeoutMs: 20_000, message: 'the zombie' });
      expect(() => process.kill(pid, 0)).not.toThrow(); // what the old check relied on
      expect(ownerAlive({ pid, host: hostname() })).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('takes an owner whose pid now belongs to another process (reused) for dead, and itself for alive', () => {
    const me = ownRecord();
    expect(me.procStart).toEqual(expect.any(Number));
    expect(ownerAlive(me)).toBe(true);
    expect(ownerAlive({ ...me, procStart: me.procStart! - 1 })).toBe(false);
    const init = execFileSync('cat', ['/proc/1/stat'], { encoding: 'utf8' });
    const initStart = Number(init.slice(init.lastIndexOf(')') + 2).split(' ')[19]);
    expect(ownerAlive({ pid: 1, host: hostname(), startedUnixMs: 0, procStart: initStart + 1 })).toBe(false);
  });

  it('takes over a directory whose owner died after it started, without a restart', async () => {
    const dir = outboxDir();
    const bus = new InProcessBus();
    const seen: string[] = [];
    const consumer = await bus.consumeEvents({ durable: 't', filterSubjects: [...TOOL_CALLED_FILTERS], handler: async (b) => void seen.push(...b.flatMap((m) => decodeToolCalledMessage(m.subject, m.data).map((e) => e.eventId))) });
    const recovered: number[] = [];
    const publisher = new CallEventPublisher(bus, { durability: 'outbox', outboxDir: dir, batchDelayMs: 1, orphanScanMs: 50, onRecovered: (n) => recovered.push(n) });
    // Another dispatcher on the same directory, killed after this one started.
    const { journal: other } = EventJournal.open({ dir });
    for (let i = 0; i < 3; i++) other.append(encoded(i));
    orphan(other);
    await waitFor(() => seen.length === 3, { timeoutMs: 20_000, message: 'the dead dispatcher\'s events' });
    expect(recovered).toEqual([3]);
    expect(await publisher.close(20_000)).toBe(0);
    await consumer.close();
    await bus.close();
    expect(seen.sort()).toEqual(['e-0', 'e-1', 'e-2']);
    expect(readdirSync(dir)).toEqual([]);
  });
});
