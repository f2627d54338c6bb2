import { inflateRawSync } from 'node:zlib';

import { ErrorCode } from '@toolhub/contracts';

import { type CallSlice, sliceByTool } from '../src/stats/call-slices';
import { DigestCache, LatencyDigest, MAX_LATENCY_MS } from '../src/stats/digest';
import { type CallRecord, failureClass, normalizeEvents } from '../src/stats/events';
import { emptyStats, foldCalls } from '../src/stats/fold';
import { packBatch, packStats, unpackBatch, unpackStats } from '../src/stats/packing';
import { called } from '../src/testing';

/** `records` (of one tool) as one slice. */
function sliceOf(records: readonly CallRecord[]): CallSlice {
  return sliceByTool(new Map([['', records]])).get('')!;
}

describe('failureClass', () => {
  it('is undefined for ok, the status for a snake_case status, else the error code name, else unknown', () => {
    expect(failureClass({ status: 'ok', errorCode: 0 })).toBeUndefined();
    expect(failureClass({ status: 'tool_error', errorCode: 0 })).toBe('tool_error');
    expect(failureClass({ status: 'Timeout', errorCode: ErrorCode.ERROR_CODE_TIMEOUT })).toBe('timeout');
    expect(failureClass({ status: 'weird status!', errorCode: ErrorCode.ERROR_CODE_RATE_LIMITED })).toBe('rate_limited');
    expect(failureClass({ status: '', errorCode: 0 })).toBe('unknown');
  });
});

describe('normalizeEvents', () => {
  it('fills a missing timestamp with now (marking the record untimed), clamps latency, and derives the tool id from provider and name', () => {
    const { records } = normalizeEvents([called('a', '', { provider: 'local', name: 'x', latencyMs: 1e12, timestampUnixMs: 0 })], 42);
    expect(records).toEqual([{ id: 'a', t: 'local:x', ok: true, c: '', l: MAX_LATENCY_MS, ts: 42, fb: false, u: true }]);
  });
});

describe('LatencyDigest', () => {
  it('survives encoding, keeps counting after decoding, and stays small', () => {
    const digest = LatencyDigest.empty();
    for (let i = 0; i < 100_000; i++) digest.record((i * 7919) % 60_000);
    const encoded = digest.encode();
    expect(encoded.length).toBeLessThan(8_000);
    const decoded = LatencyDigest.decode(encoded);
    expect(decoded.count).toBe(100_000);
    expect(decoded.percentile(50)).toBe(digest.percentile(50));
    decoded.record(5);
    expect(decoded.count).toBe(100_001);
    expect(LatencyDigest.decode('').percentile(99)).toBe(0);
  });
});

describe('DigestCache', () => {
  const encodedOf = (n: number): string => {
    const digest = LatencyDigest.empty();
    for (let i = 0; i < n; i++) digest.record(i);
    return digest.encode();
  };

  it('hands back the digest kept for exactly the stored text, once', () => {
    const cache = new DigestCache(10);
    const stored = encodedOf(3);
    const digest = cache.take('local:x', stored);
    expect(digest.count).toBe(3);
    digest.record(7);
    cache.keep('local:x', digest.encode(), digest);
    const next = digest.encode();
    expect(cache.take('local:x', next)).toBe(digest);
    // Taken out: a write that changed it and then failed must not see it again.
    expect(cache.size).toBe(0);
    expect(cache.take('local:x', next)).not.toBe(digest);
  });

  it('decodes the stored text when the kept digest is of another version of the document', () => {
    const cache = new DigestCache(10);
    const kept = LatencyDigest.decode(encodedOf(2));
    cache.keep('local:x', encodedOf(2), kept);
    // Another writer wrote the tool since: its text differs, and the kept digest is not used.
    const other = cache.take('local:x', encodedOf(5));
    expect(other).not.toBe(kept);
    expect(other.count).toBe(5);
  });

  it('keeps at most its limit, dropping the least recently used', () => {
    const cache = new DigestCache(2);
    const text = encodedOf(1);
    const digests = ['a', 'b', 'c'].map((key) => {
      const digest = LatencyDigest.decode(text);
      cache.keep(`local:${key}`, text, digest);
      return digest;
    });
    expect(cache.size).toBe(2);
    expect(cache.take('local:a', text)).not.toBe(digests[0]);
    expect(cache.take('local:c', text)).toBe(digests[2]);
  });
});

describe('foldCalls', () => {
  it('drops hourly buckets older than the retention but keeps counting the calls in the totals', () => {
    const now = Date.UTC(2025, 0, 10, 12);
    const doc = foldCalls(emptyStats('local:x'), [sliceOf(normalizeEvents([called('old', 'local:x', { timestampUnixMs: now - 48 * 3_600_000 }), called('new', 'local:x')], now).records)], now, 24);
    expect(doc.calls).toBe(2);
    expect(doc.hourly.map((h) => h.h)).toEqual([now]);
  });
});

describe('call slices (waiting calls, packed)', () => {
  const HOUR = 3_600_000;
  const now = 100 * HOUR;
  const record = (id: string, t: string, ok: boolean, c: string, l: number, ts: number, fb: boolean) => ({ id, t, ok, c, l, ts, fb });
  const byTool = new Map([
    ['local:a', [record('1', 'local:a', true, '', 5, now - HOUR, false), record('2', 'local:a', false, 'timeout', MAX_LATENCY_MS, now, true), record('3', 'local:a', false, 'tool_error', 0, now, false)]],
    ['local:b', [record('4', 'local:b', true, '', 70_000, now - 3 * HOUR, true)]],
  ]);

  it('keeps what folding needs of every call, by tool, with failures counted by class', () => {
    const slices = sliceByTool(byTool);
    expect([...slices.keys()]).toEqual(['local:a', 'local:b']);
    const seen: unknown[] = [];
    slices.get('local:a')!.forEach((ts, l, ok, fb) => seen.push([ts, l, ok, fb]));
    expect(seen).toEqual([
      [now - HOUR, 5, true, false],
      [now, MAX_LATENCY_MS, false, true],
      [now, 0, false, false],
    ]);
    expect(slices.get('local:a')!.count).toBe(3);
    expect(slices.get('local:a')!.failures).toEqual({ timeout: 1, tool_error: 1 });
    expect(slices.get('local:b')!.failures).toBeUndefined();
  });

  it('folds two batches of a tool as one fold of all their calls would', () => {
    const calls = [...byTool.get('local:a')!, record('5', 'local:a', false, 'timeout', 9, now, false)];
    const whole = foldCalls(emptyStats('local:a'), [sliceOf(calls)], now, 168);
    const parts = foldCalls(emptyStats('local:a'), [sliceByTool(byTool).get('local:a')!, sliceOf(calls.slice(3))], now, 168);
    expect(parts).toEqual(whole);
    expect(whole).toMatchObject({ calls: 4, successes: 1, failureCount: 3, failures: { timeout: 2, tool_error: 1 }, fallbackServed: 1, firstCallUnixMs: now - HOUR, lastCallUnixMs: now });
    expect(whole.hourly).toEqual([
      { h: now - HOUR, c: 1, s: 1, f: 0, l: 5 },
      { h: now, c: 3, s: 0, f: 3, l: MAX_LATENCY_MS + 9 },
    ]);
  });
});

describe('stored statistics documents (packing)', () => {
  const HOUR = 3_600_000;
  const now = 200 * HOUR;
  const doc = () => {
    const records = [
      { id: 'a', t: 'local:x', ok: true, c: '', l: 12, ts: now - 2 * HOUR, fb: false },
      { id: 'b', t: 'local:x', ok: false, c: 'timeout', l: 900, ts: now, fb: true },
    ];
    return { ...foldCalls(emptyStats('local:x'), [sliceOf(records)], now, 168), guard: [{ b: 'batch1', at: now }], rev: 3 };
  };

  it('stores the hourly series and the guard as text and reads them back unchanged', () => {
    const stored = packStats(doc());
    expect(typeof stored.hourly).toBe('string');
    expect(typeof stored.guard).toBe('string');
    expect(stored.hourly).toBe(`[[${now - 2 * HOUR},1,1,0,12],[${now},1,0,1,900]]`);
    expect(unpackStats(stored)).toEqual(doc());
  });

  it('reads documents stored by earlier versions, with arrays', () => {
    const old = doc();
    expect(unpackStats(old as never)).toEqual(old);
  });

  it('leaves out what a projection left out', () => {
    const { guard: _guard, latency: _latency, ...listed } = packStats(doc());
    const read = unpackStats(listed as never);
    expect(read.guard).toBeUndefined();
    expect(read.hourly).toEqual(doc().hourly);
  });
});

describe('stored call batches (packing)', () => {
  const batch = () => ({
    _id: 'batch1',
    at: 1_700_000_000_000,
    events: [
      { id: 'e-1', t: 'local:x', ok: true, c: '', l: 12, ts: 1_699_999_999_000, fb: false },
      { id: 'e-"2"', t: 'mcp:web_fetch', ok: false, c: 'timeout', l: 30_000, ts: 1_700_000_000_000, fb: true },
    ],
  });

  it('stores the records as one JSON text and reads them back unchanged', () => {
    const stored = packBatch(batch());
    expect(stored.events).toBe('[["e-1","local:x",1,"",12,1699999999000,0],["e-\\"2\\"","mcp:web_fetch",0,"timeout",30000,1700000000000,1]]');
    expect(unpackBatch(stored)).toEqual(batch());
  });

  it('keeps the mark of a record whose event had no timestamp (its claim is placed by it)', () => {
    const untimed = { _id: 'batch2', at: 5, events: [{ id: 'u-1', t: 'local:x', ok: true, c: '', l: 1, ts: 5, fb: false, u: true as const }] };
    const stored = packBatch(untimed);
    expect(stored.events).toBe('[["u-1","local:x",1,"",1,5,0,1]]');
    expect(unpackBatch(stored)).toEqual(untimed);
  });

  it('keeps grouped records under `grouped`, not `events` (which the version before reads), tools and groups listed once', () => {
    const mixed = {
      _id: 'batch3',
      at: 5,
      events: [
        { id: 'g-1', t: 'local:x', ok: true, c: '', l: 1, ts: 5, fb: false, g: '5-d1-1' },
        { id: 'n-1', t: 'local:x', ok: false, c: 'timeout', l: 2, ts: 5, fb: true, u: true as const },
        { id: 'g-2', t: 'mcp:y', ok: true, c: '', l: 3, ts: 9, fb: false, g: '4-d1-2' },
        { id: 'g-3', t: 'local:x', ok: false, c: 'tool_error', l: 4, ts: 4, fb: false, g: '5-d1-1' },
      ],
    };
    const stored = packBatch(mixed);
    expect(stored).not.toHaveProperty('events');
    expect(JSON.parse(inflateRawSync(stored.grouped as Buffer).toString('utf8'))).toEqual({
      base: 4,
      tools: ['local:x', 'mcp:y'],
      groups: ['5-d1-1', '4-d1-2'],
      r: [
        ['g-1', 0, 1, '', 1, 1, 0],
        ['n-1', 0, 6, 'timeout', 2, 1, -1],
        ['g-2', 1, 1, '', 3, 5, 1],
        ['g-3', 0, 0, 'tool_error', 4, 0, 0],
      ],
    });
    expect(unpackBatch(stored)).toEqual(mixed);
    // As the driver reads it back: BSON Binary, the bytes in `buffer`.
    expect(unpackBatch({ ...stored, grouped: { buffer: new Uint8Array(stored.grouped as Buffer) } })).toEqual(mixed);
  });

  it('reads batches stored by earlier versions, with arrays, and leaves out what a projection left out', () => {
    expect(unpackBatch(batch() as never)).toEqual(batch());
    expect(unpackBatch({ _id: 'batch1' } as never)).toEqual({ _id: 'batch1' });
  });
});
