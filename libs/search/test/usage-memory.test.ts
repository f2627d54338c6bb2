/**
 * What learning from use shows operators: the newest pairs with their current weight, how many are
 * held, the bounds in force; and nothing but `enabled: false` when learning is switched off.
 */
import { HybridSearch, ToolSearchIndex, UsageMemory } from '@toolhub/search';

const HOUR = 3600_000;

describe('UsageMemory, as operators see it', () => {
  it('lists the newest pairs first with a weight that halves every half-life, per provider or all', () => {
    let now = 1_000_000_000_000;
    const memory = new UsageMemory({ halfLifeMs: 10 * HOUR, now: () => now });
    memory.rememberSearch('s1', ['send mail'], [undefined]);
    expect(memory.recordRun('s1', 'mail:send', 'mail', now)).toBe(true);
    now += HOUR;
    memory.rememberSearch('s2', ['open issue', 'file bug'], [undefined, undefined]);
    expect(memory.recordRun('s2', 'gh:create_issue', 'gh', now)).toBe(true);
    now += 9 * HOUR;

    const all = memory.recent(10);
    expect(all.map((u) => [u.toolId, u.query])).toEqual([
      ['gh:create_issue', 'open issue'],
      ['gh:create_issue', 'file bug'],
      ['mail:send', 'send mail'],
    ]);
    expect(all[2]!.weight).toBeCloseTo(0.5, 10);
    expect(all[0]!.weight).toBeCloseTo(Math.pow(0.5, 0.9), 10);
    expect(memory.recent(1)).toHaveLength(1);
    expect(memory.recent(10, 'mail')).toEqual([{ toolId: 'mail:send', provider: 'mail', query: 'send mail', atUnixMs: 1_000_000_000_000, weight: expect.closeTo(0.5, 10) }]);
    expect([memory.count(), memory.count('gh'), memory.count('mail'), memory.count('none')]).toEqual([3, 2, 1, 0]);
  });

  it('keeps at most maxPerProvider pairs per provider, and reports its settings with defaults filled in', () => {
    const memory = new UsageMemory({ maxPerProvider: 2 });
    for (let i = 0; i < 5; i++) memory.observe({ toolId: 'a:t', provider: 'a', query: `q${i}`, atUnixMs: i }, undefined);
    memory.observe({ toolId: 'b:t', provider: 'b', query: 'q', atUnixMs: 0 }, undefined);
    expect(memory.recent(10, 'a').map((u) => u.query)).toEqual(['q4', 'q3']);
    expect(memory.count()).toBe(3);
    expect(memory.settings).toEqual({ maxBoost: 0.5, similarity: 0.75, halfLifeMs: 7 * 24 * HOUR, maxPerProvider: 2, maxSearches: 10_000, searchTtlMs: HOUR });
  });

  it('learns a run once by its id, and counts an observation that arrives again (broadcast, store) once', () => {
    let now = 1_000_000_000_000;
    const memory = new UsageMemory({ maxPerProvider: 3, now: () => now });
    memory.rememberSearch('s1', ['send mail', 'email someone'], [Float32Array.of(1, 0), undefined]);
    const learned = memory.learnRun('s1', { runId: 'e1', toolId: 'mail:send', provider: 'mail', atUnixMs: now });
    expect(learned?.map((o) => [o.id, o.query, o.vector])).toEqual([
      ['e1#0', 'send mail', Float32Array.of(1, 0)],
      ['e1#1', 'email someone', undefined],
    ]);
    expect(memory.learnRun('s1', { runId: 'e1', toolId: 'mail:send', provider: 'mail' })).toEqual([]);
    expect(memory.learnRun('unknown', { runId: 'e2', toolId: 'mail:send', provider: 'mail' })).toBeUndefined();
    expect(memory.add(learned![0]!)).toBe(false);
    expect(memory.count()).toBe(2);
    // Another replica's observation, older than those held: kept in time order, so the oldest goes first.
    expect(memory.add({ id: 'x#0', toolId: 'mail:read', provider: 'mail', query: 'read mail', atUnixMs: now - HOUR })).toBe(true);
    now += HOUR;
    expect(memory.add({ id: 'y#0', toolId: 'mail:read', provider: 'mail', query: 'inbox', atUnixMs: now })).toBe(true);
    expect(memory.recent(10).map((u) => u.query)).toEqual(['inbox', 'send mail', 'email someone']);
    expect(memory.boosts(['email someone'], [undefined]).get('mail:send')).toBeGreaterThan(1);
  });

  it('HybridSearch.learning reports what is held, and only enabled: false when learning is off', async () => {
    const on = new HybridSearch(new ToolSearchIndex());
    const res = await on.search({ queries: ['anything'] });
    on.recordRun(res.searchId, 'p:t', 'p');
    expect(on.learning(5, 'p')).toMatchObject({ enabled: true, total: 1, settings: { maxPerProvider: 2000 }, entries: [{ toolId: 'p:t', query: 'anything' }] });
    expect(new HybridSearch(new ToolSearchIndex(), { learning: false }).learning()).toEqual({ enabled: false, total: 0, entries: [] });
  });
});
