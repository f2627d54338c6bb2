/** Liveness-aware search: hits of a provider with no live replica are marked and ranked last. */
import { AdapterHealthResponse, type SearchHit, SearchMode } from '@toolhub/contracts';

import { ProviderLiveness } from '../src';

const beat = (provider: string, instanceId: string, healthy = true, detail = 'ok', catalogVersion = '') =>
  AdapterHealthResponse.encode({ provider, instanceId, healthy, detail, toolCount: 1, startedUnixMs: 0, catalogVersion, contractVersion: '', sdkVersion: '' } as AdapterHealthResponse).finish();
const hit = (provider: string, name: string, score: number): SearchHit => ({ id: `${provider}:${name}`, provider, name, path: '', summary: '', score, queryIndexes: [0] }) as SearchHit;
const response = (hits: SearchHit[]) => ({ hits, suggestions: [], searchId: '', mode: SearchMode.SEARCH_MODE_LEXICAL, note: '' });

describe('ProviderLiveness', () => {
  const t0 = 1_000_000;

  it('ranks the hits of a provider whose last replica stopped below live ones, with since-when', () => {
    const live = new ProviderLiveness(t0, { ttlMs: 15_000, graceMs: 15_000 });
    live.onHeartbeat(beat('gone', 'a'), t0 + 1000);
    live.onHeartbeat(beat('up', 'b'), t0 + 1000);
    live.onHeartbeat(beat('gone', 'a', false, 'stopping'), t0 + 2000);
    const res = live.markHits(response([hit('gone', 'best', 1), hit('up', 'second', 0.5)]), t0 + 3000);
    expect(res.hits.map((h) => [h.name, h.unavailable ?? false, h.unavailableSinceUnixMs ?? 0])).toEqual([
      ['second', false, 0],
      ['best', true, t0 + 2000],
    ]);
  });

  it('calls a provider unavailable once its replicas miss heartbeats past the TTL', () => {
    const live = new ProviderLiveness(t0, { ttlMs: 15_000 });
    live.onHeartbeat(beat('quiet', 'a'), t0);
    expect(live.unavailableSince('quiet', t0 + 10_000)).toBe(0);
    expect(live.unavailableSince('quiet', t0 + 20_000)).toBe(t0 + 15_000);
  });

  it('gives providers a start-up grace, then calls the never-seen ones unavailable since the start', () => {
    const live = new ProviderLiveness(t0, { graceMs: 15_000 });
    expect(live.unavailableSince('api_only', t0 + 5000)).toBe(0);
    expect(live.unavailableSince('api_only', t0 + 16_000)).toBe(t0);
  });

  it('tells the catalog versions of the live replicas only, without a start-up grace', () => {
    const live = new ProviderLiveness(t0, { ttlMs: 15_000, graceMs: 15_000 });
    live.onHeartbeat(beat('p', 'old', true, 'ok', 'v1'), t0);
    live.onHeartbeat(beat('p', 'new', true, 'ok', 'v2'), t0 + 10_000);
    expect(live.liveCatalogVersions('p', t0 + 12_000).sort()).toEqual(['v1', 'v2']);
    expect(live.liveCatalogVersions('p', t0 + 20_000)).toEqual(['v2']);
    expect(live.isLive('p', t0 + 20_000)).toBe(true);
    expect(live.isLive('never', t0 + 1000)).toBe(false);
    expect(live.unavailableSince('never', t0 + 1000)).toBe(0); // search's grace still holds
  });
});
