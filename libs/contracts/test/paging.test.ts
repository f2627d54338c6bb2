import { compareKeys, DEFAULT_PAGE_SIZE, isToolHubError, MAX_PAGE_SIZE, PAGE_TOKEN_TTL_MS, type Page, paginate, type PagingSpec, ToolHubError } from '../src';

interface Item {
  id: string;
  bytes: number;
}

const items = (n: number, bytes = 100): Item[] => Array.from({ length: n }, (_, i) => ({ id: `p:tool_${String(i).padStart(5, '0')}`, bytes }));
const T0 = 1_800_000_000_000;
const spec = (over: Partial<PagingSpec<Item>> = {}): PagingSpec<Item> => ({
  rpc: 'ListThings',
  scope: 'provider="p"',
  key: (t) => [t.id],
  compare: compareKeys,
  size: (t) => t.bytes,
  label: (t) => `tool ${t.id}`,
  now: T0,
  ...over,
});

/** Every page from the first, following tokens. */
function allPages(list: Item[], pageSize: number, s = spec()): Array<Page<Item>> {
  const pages: Array<Page<Item>> = [];
  let pageToken = '';
  do {
    const page = paginate(list, { pageSize, pageToken }, s);
    pages.push(page);
    pageToken = page.nextPageToken;
    if (pages.length > list.length + 1) throw new Error('paging does not end');
  } while (pageToken !== '');
  return pages;
}

function thrown(fn: () => unknown): ToolHubError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ToolHubError) return err;
    throw err;
  }
  throw new Error('expected a ToolHubError');
}

describe('paginate', () => {
  it('hands out every item exactly once, in order, across pages of page_size', () => {
    const list = items(1234);
    const pages = allPages(list, 500);
    expect(pages.map((p) => p.items.length)).toEqual([500, 500, 234]);
    expect(pages.flatMap((p) => p.items.map((t) => t.id))).toEqual(list.map((t) => t.id));
    expect(pages.every((p) => p.total === 1234)).toBe(true);
    expect(pages.map((p) => p.start)).toEqual([0, 500, 1000]);
  });

  it('gives an old client (no page fields) the whole list in one reply when it fits', () => {
    const page = paginate(items(3000), { pageSize: 0, pageToken: '' }, spec());
    expect(page.items).toHaveLength(3000);
    expect(page.nextPageToken).toBe('');
  });

  it('refuses an old client whose list is over the byte budget with FAILED_PRECONDITION naming the limit and page_size', () => {
    const err = thrown(() => paginate(items(100, 1000), { pageSize: 0, pageToken: '' }, spec({ budgetBytes: 50_000 })));
    expect(isToolHubError(err, 'failed_precondition')).toBe(true);
    expect(err.message).toContain('50000 bytes');
    expect(err.message).toContain('page_size');
    expect(err.message).toContain('next_page_token');
    expect(err.violations[0]?.field).toBe('page_size');
  });

  it('uses the default page size with a token and no page_size, and caps page_size at the maximum', () => {
    const list = items(MAX_PAGE_SIZE + 10);
    const first = paginate(list, { pageSize: 1_000_000, pageToken: '' }, spec());
    expect(first.items).toHaveLength(MAX_PAGE_SIZE);
    const rest = paginate(items(DEFAULT_PAGE_SIZE * 3), { pageSize: 0, pageToken: paginate(items(DEFAULT_PAGE_SIZE * 3), { pageSize: 1, pageToken: '' }, spec()).nextPageToken }, spec());
    expect(rest.items).toHaveLength(DEFAULT_PAGE_SIZE);
    expect(rest.start).toBe(1);
  });

  it('ends a page early at the byte budget and still returns every item once', () => {
    // 45 KiB per item against a 300 KiB budget: 6 items per page although page_size asks for 50.
    const list = items(40, 45 * 1024);
    const pages = allPages(list, 50, spec({ budgetBytes: 300 * 1024 }));
    expect(pages.length).toBeGreaterThan(1);
    for (const p of pages) expect(p.items.reduce((n, t) => n + t.bytes + 4, 0)).toBeLessThanOrEqual(300 * 1024);
    expect(pages.flatMap((p) => p.items.map((t) => t.id))).toEqual(list.map((t) => t.id));
  });

  it('counts the first page\'s other fields against its budget', () => {
    const list = items(10, 10 * 1024);
    const plain = paginate(list, { pageSize: 50, pageToken: '' }, spec({ budgetBytes: 80 * 1024 }));
    const withCategories = paginate(list, { pageSize: 50, pageToken: '' }, spec({ budgetBytes: 80 * 1024, firstPageBytes: 30 * 1024 }));
    expect(withCategories.items.length).toBeLessThan(plain.items.length);
  });

  it('refuses an item that alone is over the budget instead of sending a reply too large', () => {
    const list = [...items(2), { id: 'p:tool_huge', bytes: 10 * 1024 * 1024 }];
    const first = paginate(list, { pageSize: 10, pageToken: '' }, spec());
    expect(first.items).toHaveLength(2);
    const err = thrown(() => paginate(list, { pageSize: 10, pageToken: first.nextPageToken }, spec()));
    expect(isToolHubError(err, 'failed_precondition')).toBe(true);
    expect(err.message).toContain('p:tool_huge');
  });

  it('neither repeats nor skips an unchanged item when the list changes between pages', () => {
    const list = items(30);
    const first = paginate(list, { pageSize: 10, pageToken: '' }, spec());
    // The last item sent is deleted, one before the cursor is added, one after it too.
    const changed = [...list.filter((t) => t.id !== first.items[9]!.id), { id: 'p:tool_00003a', bytes: 100 }, { id: 'p:tool_00015a', bytes: 100 }].sort((a, b) => compareKeys([a.id], [b.id]));
    const rest = paginate(changed, { pageSize: 100, pageToken: first.nextPageToken }, spec());
    const seen = [...first.items, ...rest.items].map((t) => t.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(list.slice(10).map((t) => t.id)));
    expect(seen).toContain('p:tool_00015a');
  });

  it.each([
    ['garbage', 'not-a-token!', 'is not a token this API issued'],
    ['JSON of another shape', Buffer.from('{"v":9}').toString('base64url'), 'is not a token this API issued'],
  ])('refuses a %s page_token with INVALID_ARGUMENT that says what to send', (_what, token, problem) => {
    const err = thrown(() => paginate(items(5), { pageSize: 2, pageToken: token }, spec()));
    expect(isToolHubError(err, 'invalid_argument')).toBe(true);
    expect(err.message).toContain(problem);
    expect(err.message).toContain('Send the next_page_token of the previous reply unchanged');
    expect(err.message).toContain('no page_token to start again');
    expect(err.violations[0]?.field).toBe('page_token');
  });

  it('refuses a token of another listing (other filters)', () => {
    const token = paginate(items(5), { pageSize: 2, pageToken: '' }, spec()).nextPageToken;
    const err = thrown(() => paginate(items(5), { pageSize: 2, pageToken: token }, spec({ scope: 'provider="q"' })));
    expect(isToolHubError(err, 'invalid_argument')).toBe(true);
    expect(err.message).toContain('belongs to another listing than provider="q"');
  });

  it('accepts a token within its hour and refuses it after', () => {
    const token = paginate(items(5), { pageSize: 2, pageToken: '' }, spec()).nextPageToken;
    expect(paginate(items(5), { pageSize: 2, pageToken: token }, spec({ now: T0 + PAGE_TOKEN_TTL_MS })).items).toHaveLength(2);
    const err = thrown(() => paginate(items(5), { pageSize: 2, pageToken: token }, spec({ now: T0 + PAGE_TOKEN_TTL_MS + 1 })));
    expect(isToolHubError(err, 'invalid_argument')).toBe(true);
    expect(err.message).toContain('expired (a token is valid for 60 minutes)');
  });

  it('answers an empty list with no token', () => {
    expect(paginate([], { pageSize: 10, pageToken: '' }, spec())).toEqual({ items: [], nextPageToken: '', total: 0, start: 0 });
  });
});
