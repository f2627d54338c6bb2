/** A long query (a task description with a pasted attachment) is searched on its prefix, with a note. */
import { ToolSearchIndex } from '@toolhub/search';

import { catalog } from './fixtures';

describe('long queries', () => {
  const index = new ToolSearchIndex();
  index.upsert(catalog());
  const short = index.search({ queries: ['read a file'] });

  it('searches a query past the length limit on its prefix and says so in the note', () => {
    const pasted = `read a file ${'lorem ipsum dolor sit amet '.repeat(2000)}`;
    expect(pasted.length).toBeGreaterThan(50_000);
    const res = index.search({ queries: [pasted] });
    expect(res.hits.length).toBeGreaterThan(0);
    expect(res.note).toMatch(/^Query 0 was longer than 8000 characters and searched on the first 8000 only; put the key words first\.$/);
    expect(short.note).toBe('');
  });

  it('keeps the words of the prefix: the same tool answers as for the short query', () => {
    const res = index.search({ queries: [`read a file ${'x'.repeat(20_000)}`] });
    expect(res.hits[0]?.id).toBe(short.hits[0]?.id);
  });
});
