import { seededRandom } from '@toolhub/test-harness';
import MiniSearch from 'minisearch';

import { LexicalIndex, type LexicalScoring, type QueryTerm } from '../src/lexical-index';

const FIELDS = ['name', 'category', 'description', 'params'] as const;
const WORDS = ['file', 'files', 'read', 'reader', 'write', 'issue', 'issues', 'repository', 'branch', 'delete', 'weather', 'whether', 'forecast', 'list', 'lists', 'create', 'droplet', 'image'];
const scoring: LexicalScoring = { boosts: [2, 1.5, 1, 0.7], bm25: { k: 1.2, b: 0.7, d: 0.5 }, partial: { prefix: 0.375, fuzzy: 0.45 } };

type Doc = { id: string } & Record<(typeof FIELDS)[number], string>;

function randomDoc(id: string, rnd: () => number): Doc {
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
  return { id, name: words(1 + Math.floor(rnd() * 3)), category: words(Math.floor(rnd() * 3)), description: words(Math.floor(rnd() * 12)), params: words(Math.floor(rnd() * 6)) };
}

/** MiniSearch configured as ToolSearchIndex configured it before LexicalIndex: the reference scores. */
function reference(): MiniSearch<Doc> {
  return new MiniSearch<Doc>({
    fields: [...FIELDS],
    tokenize: (t) => t.split(' ').filter(Boolean),
    searchOptions: { boost: { name: 2, category: 1.5, description: 1, params: 0.7 }, weights: { prefix: 0.375, fuzzy: 0.45 }, bm25: scoring.bm25, combineWith: 'OR' },
  });
}

/** The scores of one search, copied (the index reuses its result buffers). */
function scoresOf(index: LexicalIndex, terms: QueryTerm[], boosts = scoring.boosts): Map<string, number> {
  const m = index.search(terms, { ...scoring, boosts });
  return new Map(Array.from({ length: m.count }, (_, i) => [index.idOf(m.slots[i]!), m.scores[i]!]));
}

describe('LexicalIndex', () => {
  it('scores exactly as MiniSearch did, through adds, replacements, removals and compactions', async () => {
    const rnd = seededRandom(7);
    const lexical = new LexicalIndex(FIELDS.length);
    const mini = reference();
    const live = new Map<string, Doc>();
    for (let step = 0; step < 3000; step++) {
      const id = `t${Math.floor(rnd() * 400)}`;
      if (rnd() < 0.3 && live.has(id)) {
        lexical.remove(id);
        mini.discard(id);
        live.delete(id);
      } else {
        const doc = randomDoc(id, rnd);
        lexical.set(id, FIELDS.map((f) => doc[f].split(' ').filter(Boolean)));
        if (live.has(id)) mini.replace(doc);
        else mini.add(doc);
        live.set(id, doc);
      }
    }
    // MiniSearch cleans discarded documents out of its lists lazily (and its scores drift until then).
    await mini.vacuum();
    expect(lexical.size).toBe(live.size);
    for (const [query, prefix, fuzzy] of [
      ['file issue', false, 0],
      ['weather forecast list', false, 0],
      ['repo', true, 0],
      ['wether', false, 1],
      ['fil', true, 1],
      ['reposit brnch', true, 1],
    ] as const) {
      const words = query.split(' ');
      const want = new Map(mini.search(query, { prefix, fuzzy: fuzzy || false }).map((r) => [r.id as string, r.score]));
      const got = scoresOf(lexical, words.map((term) => ({ term, prefix, fuzzy })));
      expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
      for (const [id, score] of want) expect(got.get(id)).toBeCloseTo(score, 9);
    }
  });

  it('filters by id without changing scores, and knows which fields matched', () => {
    const index = new LexicalIndex(2);
    index.set('a', [['read', 'file'], ['disk']]);
    index.set('b', [['write'], ['file', 'disk']]);
    const file = [{ term: 'file', prefix: false, fuzzy: 0 }];
    const all = scoresOf(index, file, [2, 1]);
    const only = index.search(file, { ...scoring, boosts: [2, 1] }, (id) => id === 'b');
    expect(only.count).toBe(1);
    expect(index.idOf(only.slots[0]!)).toBe('b');
    expect(only.fields[0]).toBe(0b10);
    expect(only.scores[0]).toBeCloseTo(all.get('b')!, 12);
    expect(all.size).toBe(2);
  });

  it('counts documents per term across fields and forgets removed ones', () => {
    const index = new LexicalIndex(2);
    index.set('a', [['read', 'file'], ['file']]);
    index.set('b', [['file'], []]);
    expect(index.frequency('file')).toBe(2);
    index.remove('a');
    expect(index.frequency('file')).toBe(1);
    expect(index.has('read')).toBe(false);
    index.remove('missing');
    expect(index.size).toBe(1);
  });
});
