import { Importance, isToolHubError, SearchMode, type ToolHubError } from '@toolhub/contracts';
import { isSearchError, ToolSearchIndex } from '@toolhub/search';

import { catalog, tool } from './fixtures';

function indexOf(tools = catalog()): ToolSearchIndex {
  const index = new ToolSearchIndex();
  index.upsert(tools);
  return index;
}

function ids(index: ToolSearchIndex, queries: string[], extra: { provider?: string; path?: string; limit?: number } = {}): string[] {
  return index.search({ queries, ...extra }).hits.map((h) => h.id);
}

function thrown(fn: () => unknown): ToolHubError {
  try {
    fn();
  } catch (err) {
    if (isToolHubError(err)) return err;
    throw err;
  }
  throw new Error('expected a ToolHubError');
}

describe('ToolSearchIndex ranking', () => {
  it('ranks a tool whose name matches above one that only mentions the word in its description', () => {
    const index = indexOf([
      tool('a', 'archive_mailbox', 'Compress old messages. Useful before a calendar export.'),
      tool('a', 'calendar_events', 'Lists upcoming events.'),
    ]);
    expect(ids(index, ['calendar'])).toEqual(['a:calendar_events', 'a:archive_mailbox']);
  });

  it('ranks a path or tag match above a description match, and a description match above a parameter match', () => {
    const index = indexOf([
      tool('acme', 'tool_one', 'Stores a document for later.', { path: 'storage', params: { invoice: 'Which document' } }),
      tool('acme', 'tool_two', 'Stores an invoice for later.', { path: 'storage' }),
      tool('acme', 'tool_three', 'Stores a document for later.', { path: 'invoice' }),
    ]);
    expect(ids(index, ['invoice'])).toEqual(['acme:tool_three', 'acme:tool_two', 'acme:tool_one']);
  });

  it('returns each hit with its id, provider, name, path, one-line summary and a score relative to the best', () => {
    const { hits } = indexOf().search({ queries: ['create issue'] });
    expect(hits[0]).toEqual({
      id: 'github:create_issue',
      provider: 'github',
      name: 'create_issue',
      path: 'github/issues',
      summary: 'Open a new issue in a repository.',
      score: 1,
      queryIndexes: [0],
      matchedOn: '',
    });
    for (const h of hits.slice(1)) expect(h.score).toBeLessThanOrEqual(1);
  });

  it('leaves the measured query stop words out of queries that have other words, and keeps them alone', () => {
    const tools = [tool('social', 'like_post', 'Like a post on the timeline.'), tool('data', 'json_to_csv', 'Convert JSON records to CSV.')];
    const index = new ToolSearchIndex();
    index.upsert(tools);
    // "like" as filler ("I'd like to ...") no longer lifts like_post; alone, it still finds it.
    expect(index.search({ queries: ['I would like to convert json to csv'] }).hits.map((h) => h.id)).toEqual(['data:json_to_csv']);
    expect(index.search({ queries: ['like'] }).hits[0]?.id).toBe('social:like_post');
    const keep = new ToolSearchIndex({ queryStopWords: [] });
    keep.upsert(tools);
    expect(keep.search({ queries: ['I would like to convert json to csv'] }).hits.map((h) => h.id)).toContain('social:like_post');
    const custom = new ToolSearchIndex({ queryStopWords: ['convert', 'csv'] });
    custom.upsert(tools);
    expect(custom.search({ queries: ['convert json csv'] }).hits.map((h) => h.id)).toEqual(['data:json_to_csv']);
  });

  it('finds a tool by its exact name', () => {
    expect(ids(indexOf(), ['merge_pull_request'])[0]).toBe('github:merge_pull_request');
  });

  it('tolerates typos', () => {
    expect(ids(indexOf(), ['wether forcast'])[0]).toBe('local:get_weather');
  });

  it('matches word prefixes', () => {
    expect(ids(indexOf(), ['repo'])).toContain('github:create_issue');
    expect(ids(indexOf(), ['weath'])[0]).toBe('local:get_weather');
  });

  it('matches word forms and generic synonyms ("fetch" finds read_file)', () => {
    expect(ids(indexOf(), ['fetch file contents'])[0]).toBe('local:read_file');
    expect(ids(indexOf(), ['emails'])[0]).toBe('mcp:send_email');
  });

  it('finds a tool described in Chinese from a Chinese query', () => {
    expect(ids(indexOf(), ['搜索关键词'])[0]).toBe('mcp:bing_search');
    expect(ids(indexOf(), ['股票价格'])[0]).toBe('mcp:stock_price');
  });

  it('breaks ties by id, so equal tools always come in the same order', () => {
    const index = indexOf([tool('b', 'echo', 'Repeat text.'), tool('a', 'echo', 'Repeat text.'), tool('c', 'echo', 'Repeat text.')]);
    expect(ids(index, ['echo'])).toEqual(['a:echo', 'b:echo', 'c:echo']);
  });

  it('lets core tools win a close call against low-importance ones', () => {
    const index = indexOf([tool('a', 'echo', 'Repeat text.', { importance: Importance.IMPORTANCE_LOW }), tool('b', 'echo', 'Repeat text.', { importance: Importance.IMPORTANCE_CORE })]);
    expect(ids(index, ['echo'])).toEqual(['b:echo', 'a:echo']);
  });

  it('lets frequently used tools win a close call', () => {
    const index = indexOf([tool('a', 'echo', 'Repeat text.'), tool('b', 'echo', 'Repeat text.')]);
    index.setUsage([['b:echo', 120], ['a:echo', 3]]);
    expect(ids(index, ['echo'])).toEqual(['b:echo', 'a:echo']);
  });
});

describe('ToolSearchIndex common query words (commonTermShare below 1)', () => {
  // 60 tools that all "list records", one of which also mentions the weather.
  const tools = () => [
    ...Array.from({ length: 59 }, (_, i) => tool('crm', `records_${i}`, 'Lists records of the account.')),
    tool('crm', 'forecast', 'Lists records of the weather station.'),
  ];

  const indexOf = (list: ReturnType<typeof tools>): ToolSearchIndex => {
    const index = new ToolSearchIndex({ commonTermShare: 0.3 });
    index.upsert(list);
    return index;
  };

  it('keeps every word by default: sibling operations differ by their common verbs', () => {
    const crud = [
      ...Array.from({ length: 60 }, (_, i) => tool('cloud', `create_thing_${i}`, `Creates thing ${i}.`)),
      tool('cloud', 'create_droplet', 'Creates a droplet from an image, in a region, with a size, tags and an SSH key.'),
      tool('cloud', 'droplet', 'Gets a droplet: the droplet details of one droplet.'),
    ];
    const index = new ToolSearchIndex();
    index.upsert(crud);
    expect(index.options.commonTermShare).toBe(1);
    expect(ids(index, ['create a droplet'], { limit: 1 })).toEqual(['cloud:create_droplet']);
    // Leaving out "create" (in 61 of 62 tools) ranks by "droplet" alone.
    expect(ids(indexOf(crud), ['create a droplet'], { limit: 1 })).toEqual(['cloud:droplet']);
  });

  it('leaves out a word most tools have when a rarer word carries the query', () => {
    const index = indexOf(tools());
    expect(ids(index, ['list weather records'], { limit: 50 })).toEqual(['crm:forecast']);
    expect(ids(indexOfAll(tools()), ['list weather records'], { limit: 50 })).toHaveLength(50);
  });

  it('keeps common words when the query has no rarer known word', () => {
    const index = indexOf(tools());
    expect(ids(index, ['list records'], { limit: 50 })).toHaveLength(50);
    // "blizzard" is in no tool: the common words still find something.
    expect(ids(index, ['list records blizzard'], { limit: 5 })).toHaveLength(5);
  });

  it('rejects a share outside (0, 1]', () => {
    expect(() => new ToolSearchIndex({ commonTermShare: 0 })).toThrow(/commonTermShare must be a number in \(0, 1\]/);
    expect(() => new ToolSearchIndex({ commonTermShare: 1.5 })).toThrow(/commonTermShare/);
  });
});

function indexOfAll(tools: ReturnType<typeof catalog>): ToolSearchIndex {
  const index = new ToolSearchIndex({ commonTermShare: 1 });
  index.upsert(tools);
  return index;
}

describe('ToolSearchIndex filters and limits', () => {
  it('keeps only tools of the requested provider', () => {
    const found = ids(indexOf(), ['file issue email'], { provider: 'local' });
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((id) => id.startsWith('local:'))).toBe(true);
  });

  it('keeps only tools at or below the requested path', () => {
    const index = indexOf();
    expect(ids(index, ['issue pull request'], { path: 'github' }).sort()).toEqual(['github:create_issue', 'github:list_issues', 'github:merge_pull_request']);
    expect(ids(index, ['issue pull request'], { path: '/GitHub/issues/' }).sort()).toEqual(['github:create_issue', 'github:list_issues']);
  });

  it('returns at most `limit` hits, 10 by default and never more than 50', () => {
    const many = Array.from({ length: 80 }, (_, i) => tool('p', `report_${i}`, 'Build a report.'));
    const index = indexOf(many);
    expect(ids(index, ['report'], { limit: 3 })).toHaveLength(3);
    expect(ids(index, ['report'])).toHaveLength(10);
    expect(ids(index, ['report'], { limit: 500 })).toHaveLength(50);
  });
});

describe('ToolSearchIndex with several queries', () => {
  it('answers every query in one ranking and says which queries each hit matched', () => {
    const { hits } = indexOf().search({ queries: ['send email', 'weather forecast'], limit: 5 });
    const byId = new Map(hits.map((h) => [h.id, h]));
    expect(byId.get('mcp:send_email')?.queryIndexes).toEqual([0]);
    expect(byId.get('local:get_weather')?.queryIndexes).toEqual([1]);
    // Each query's best hit is on top: neither query drowns the other.
    expect(hits.slice(0, 2).map((h) => h.id).sort()).toEqual(['local:get_weather', 'mcp:send_email']);
  });

  it('ranks a tool that matches several queries above one that matches only one of them equally well', () => {
    const index = indexOf([tool('a', 'alpha', 'Convert units.'), tool('a', 'beta', 'Convert units and currencies.'), tool('a', 'gamma', 'Exchange currencies.')]);
    const { hits } = index.search({ queries: ['convert', 'currencies'] });
    expect(hits[0]?.id).toBe('a:beta');
    expect(hits[0]?.queryIndexes).toEqual([0, 1]);
  });

  it('skips blank queries but keeps the indexes of the others', () => {
    const { hits } = indexOf().search({ queries: ['  ', 'send email'] });
    expect(hits[0]?.queryIndexes).toEqual([1]);
  });
});

describe('ToolSearchIndex suggestions', () => {
  it('suggests categories instead of an empty answer when nothing matches', () => {
    const res = indexOf().search({ queries: ['xyzzy plugh'] });
    expect(res.hits).toEqual([]);
    expect(res.suggestions.length).toBeGreaterThan(0);
    expect(res.suggestions).toContain('github:github/');
  });

  it('suggests close tool names and categories', () => {
    const res = indexOf().search({ queries: ['finanzz'] });
    expect(res.hits).toEqual([]);
    expect(res.suggestions).toContain('mcp:finance/');
  });

  it('suggests the matches outside the filters when the filters hide them all', () => {
    const res = indexOf().search({ queries: ['send email'], provider: 'github' });
    expect(res.hits).toEqual([]);
    expect(res.suggestions[0]).toBe('mcp:send_email');
  });

  it('keeps suggestions inside the requested provider when nothing matches anywhere', () => {
    const res = indexOf().search({ queries: ['xyzzy'], provider: 'local' });
    expect(res.hits).toEqual([]);
    expect(res.suggestions.length).toBeGreaterThan(0);
    expect(res.suggestions.every((s) => s.startsWith('local:'))).toBe(true);
  });

  it('has nothing to suggest in an empty catalog', () => {
    expect(new ToolSearchIndex().search({ queries: ['anything'] })).toEqual({ hits: [], suggestions: [], searchId: '', mode: SearchMode.SEARCH_MODE_LEXICAL, note: '' });
  });

  it('names the closest providers when the provider does not exist', () => {
    const res = indexOf().search({ queries: ['issue'], provider: 'githb' });
    expect(res.hits).toEqual([]);
    expect(res.suggestions[0]).toBe('github:');
  });
});

describe('ToolSearchIndex updates', () => {
  it('finds added tools and forgets removed ones without a rebuild', () => {
    const index = indexOf();
    expect(ids(index, ['translate'])).toEqual([]);
    expect(index.upsert([tool('cloud', 'translate_text', 'Translate text between languages.')])).toMatchObject({ added: 1 });
    expect(ids(index, ['translate'])).toEqual(['cloud:translate_text']);
    expect(index.size).toBe(10);
    expect(index.remove(['cloud:translate_text', 'cloud:unknown'])).toMatchObject({ removed: 1 });
    expect(ids(index, ['translate'])).toEqual([]);
    expect(index.has('cloud:translate_text')).toBe(false);
  });

  it('re-indexes a changed tool and skips one whose version did not change', () => {
    const index = indexOf([tool('a', 'notes', 'Keep notes.', { version: 'v1' })]);
    expect(index.upsert([tool('a', 'notes', 'Keep notes.', { version: 'v1' })])).toMatchObject({ unchanged: 1, updated: 0 });
    expect(index.upsert([tool('a', 'notes', 'Draw diagrams.', { version: 'v2' })])).toMatchObject({ updated: 1 });
    expect(ids(index, ['diagrams'])).toEqual(['a:notes']);
    expect(ids(index, ['keep notes'])).toEqual(['a:notes']);
    expect(index.search({ queries: ['keep'] }).hits).toEqual([]);
  });

  it('replaces one provider’s catalog and leaves the others alone', () => {
    const index = indexOf();
    const change = index.replaceProvider('github', [tool('github', 'list_issues', 'List issues.'), tool('github', 'create_release', 'Publish a release.')]);
    expect(change).toEqual({ added: 1, updated: 1, unchanged: 0, removed: 2 });
    expect(index.has('github:create_issue')).toBe(false);
    expect(ids(index, ['release'])).toEqual(['github:create_release']);
    expect(index.has('local:read_file')).toBe(true);
  });

  it('refuses a tool of another provider in replaceProvider', () => {
    const err = thrown(() => indexOf().replaceProvider('github', [tool('local', 'x_tool', 'x')]));
    expect(err.code).toBe('invalid_argument');
  });
});

describe('ToolSearchIndex request validation', () => {
  it('rejects a request without queries with a message that shows how to ask', () => {
    for (const queries of [[], ['', '   ']]) {
      const err = thrown(() => indexOf().search({ queries }));
      expect(err.code).toBe('invalid_argument');
      expect(err.message).toMatch(/query/);
      expect(err.message).toMatch(/e\.g\./);
      expect(err.violations[0]?.field).toBe('queries');
    }
  });

  it('rejects a negative or fractional limit, too many queries and a bad path', () => {
    expect(thrown(() => indexOf().search({ queries: ['x'], limit: -1 })).violations[0]?.field).toBe('limit');
    expect(thrown(() => indexOf().search({ queries: ['x'], limit: 2.5 })).violations[0]?.field).toBe('limit');
    expect(thrown(() => indexOf().search({ queries: Array.from({ length: 17 }, () => 'x') })).violations[0]?.field).toBe('queries');
    expect(thrown(() => indexOf().search({ queries: ['x'], path: '../etc' })).code).toBe('invalid_argument');
  });

  it('rejects out-of-range options at construction', () => {
    expect(() => new ToolSearchIndex({ weights: { name: -1 } })).toThrow(/weights\.name/);
    try {
      new ToolSearchIndex({ defaultLimit: 80, maxLimit: 50 });
    } catch (err) {
      expect(isSearchError(err, 'invalid_options')).toBe(true);
    }
  });
});
