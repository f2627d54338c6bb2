import { InProcessBus } from '@toolhub/bus';
import { decodeToolCalledMessage, TOOL_CALLED_FILTERS, TOOL_CALLED_GROUPED_FILTERS, ToolCalled } from '@toolhub/contracts';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

import { CallEventPublisher } from '../src/call-events';
import { EventJournal, readSegment } from '../src/event-journal';
import { testEvent } from './support/events';

const event = (i: number): ToolCalled => testEvent(i);

describe('event outbox on disk', () => {
  it('keeps what a dead owner never saw stored and hands it to the next owner, once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-'));
    const { journal } = EventJournal.open({ dir });
    for (let i = 0; i < 5; i++) journal.append(ToolCalled.encode(event(i)).finish());
    // Simulate a dispatcher killed mid-run: its owner file names a pid that is not alive.
    writeFileSync(join(journal.dir, 'owner.json'), JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname() }));
    // A torn last record (killed in the middle of a write) is ignored, not misread.
    const seg = readdirSync(journal.dir).find((f) => f.startsWith('seg-'))!;
    appendFileSync(join(journal.dir, seg), Buffer.from([200, 0, 0, 0, 1, 2]));

    const next = EventJournal.open({ dir });
    expect(next.recovered).toHaveLength(1);
    expect(next.recovered[0]!.records.map((r) => ToolCalled.decode(r).eventId)).toEqual(['e-0', 'e-1', 'e-2', 'e-3', 'e-4']);
    // A third dispatcher starting meanwhile does not take the same events again.
    expect(EventJournal.open({ dir }).recovered).toHaveLength(0);
    next.recovered[0]!.settle();
    expect(readdirSync(dir).some((f) => f.startsWith('recovering-'))).toBe(false);
  });

  it('deletes a segment once every event in it is stored', () => {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-'));
    const { journal } = EventJournal.open({ dir, segmentEvents: 2 });
    const tickets = [0, 1, 2].map((i) => journal.append(ToolCalled.encode(event(i)).finish()));
    expect(readdirSync(journal.dir).filter((f) => f.startsWith('seg-'))).toHaveLength(2);
    tickets.slice(0, 2).forEach((t) => journal.settle(t));
    expect(readdirSync(journal.dir).filter((f) => f.startsWith('seg-'))).toHaveLength(1);
    journal.settle(tickets[2]!);
    journal.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("appends the events of one turn together, and resolves each record once they are all on disk", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-'));
    const publisher = new CallEventPublisher(new InProcessBus(), { durability: 'outbox', outboxDir: dir, batchDelayMs: 60_000, orphanScanMs: 0 });
    const own = join(dir, readdirSync(dir).find((f) => f.startsWith('dispatcher-'))!);
    const onDisk = () => readdirSync(own).filter((f) => f.startsWith('seg-')).flatMap((f) => readSegment(readFileSync(join(own, f))).records.map((r) => ToolCalled.decode(r).eventId));
    const seenOnResolve: string[][] = [];
    const stored = [0, 1, 2].map((i) => publisher.record(event(i))!.then(() => void seenOnResolve.push(onDisk())));
    expect(onDisk()).toEqual([]); // not yet: the turn is not over
    expect(publisher.backlog).toBe(3);
    await Promise.all(stored);
    // Every record resolved only after all three were written, and they went in one segment.
    expect(seenOnResolve).toEqual([0, 1, 2].map(() => ['e-0', 'e-1', 'e-2']));
    expect(readdirSync(own).filter((f) => f.startsWith('seg-'))).toHaveLength(1);
    await publisher.record(event(3));
    expect(onDisk()).toEqual(['e-0', 'e-1', 'e-2', 'e-3']);
    expect(publisher.backlog).toBe(4);
    await publisher.close(0);
  });

  it('reads segments of the first, length-prefixed format and stops at their torn tail', () => {
    const a = Buffer.from([1, 0, 0, 0, 7, 2, 0, 0, 0, 8, 9, 5, 0]);
    const read = readSegment(a);
    expect(read.records.map((r) => [...r])).toEqual([[7], [8, 9]]);
    expect(read).toMatchObject({ legacy: true, tornTailBytes: 2 });
  });

  it('publishes recovered events through the bus, each id once, and clears the outbox', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-'));
    const { journal } = EventJournal.open({ dir });
    for (let i = 0; i < 3; i++) journal.append(ToolCalled.encode(event(i)).finish());
    writeFileSync(join(journal.dir, 'owner.json'), JSON.stringify({ pid: 2 ** 22 + 12346, host: hostname() }));

    const bus = new InProcessBus();
    const seen: string[] = [];
    const consumer = await bus.consumeEvents({ durable: 't', filterSubjects: [...TOOL_CALLED_FILTERS], handler: async (b) => void seen.push(...b.flatMap((m) => decodeToolCalledMessage(m.subject, m.data).map((e) => e.eventId))) });
    const publisher = new CallEventPublisher(bus, { durability: 'outbox', outboxDir: dir, batchDelayMs: 1 });
    publisher.emit(event(3));
    const left = await publisher.close();
    for (let i = 0; i < 100 && seen.length < 4; i++) await new Promise((r) => setTimeout(r, 20));
    await consumer.close();
    await bus.close();
    expect(left).toBe(0);
    expect(publisher.recovered).toBe(3);
    expect(seen.sort()).toEqual(['e-0', 'e-1', 'e-2', 'e-3']);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('replays stamped events grouped, with their claim group, even where the publisher does not stamp', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-'));
    const { journal } = EventJournal.open({ dir });
    const group = '1764000000000-dead-1';
    journal.append(ToolCalled.encode({ ...event(0), claimGroup: group }).finish());
    journal.append(ToolCalled.encode({ ...event(1), claimGroup: group }).finish());
    journal.append(ToolCalled.encode(event(2)).finish());
    writeFileSync(join(journal.dir, 'owner.json'), JSON.stringify({ pid: 2 ** 22 + 12347, host: hostname() }));

    const bus = new InProcessBus();
    const grouped: Array<[string, string]> = [];
    const plain: string[] = [];
    const consumers = [
      await bus.consumeEvents({ durable: 'g', filterSubjects: [...TOOL_CALLED_GROUPED_FILTERS], handler: async (b) => void grouped.push(...b.flatMap((m) => decodeToolCalledMessage(m.subject, m.data).map((e): [string, string] => [e.eventId, e.claimGroup]))) }),
      await bus.consumeEvents({ durable: 'p', filterSubjects: [...TOOL_CALLED_FILTERS], handler: async (b) => void plain.push(...b.flatMap((m) => decodeToolCalledMessage(m.subject, m.data).map((e) => e.eventId))) }),
    ];
    const publisher = new CallEventPublisher(bus, { durability: 'outbox', outboxDir: dir, batchDelayMs: 1 });
    expect(await publisher.close()).toBe(0);
    for (let i = 0; i < 100 && grouped.length + plain.length < 3; i++) await new Promise((r) => setTimeout(r, 20));
    await Promise.all(consumers.map((c) => c.close()));
    await bus.close();
    expect(grouped.sort()).toEqual([
      ['e-0', group],
      ['e-1', group],
    ]);
    expect(plain).toEqual(['e-2']);
  });
});
