import type { ToolInfo } from '@toolhub/contracts';

import { CatalogScreen } from '../src/catalog-screen';
import { staticCatalog } from '../src/catalog';

const tools = [
  { name: 'echo_text', path: 'text', description: 'Echoes.', inputSchema: { type: 'object' }, run: async () => ({ content: [] }) },
  { name: 'sum_numbers', path: 'math', description: 'Adds.', inputSchema: { type: 'object' }, run: async () => ({ content: [] }) },
];

describe('CatalogScreen', () => {
  it('screens the catalog once per version: heartbeats and health reuse the screened and encoded catalog', async () => {
    const catalog = staticCatalog('local', tools);
    let infos: ToolInfo[] = await catalog.catalog();
    const screen = new CatalogScreen({ catalog: async () => [...infos] }, 64 * 1024, (t) => t);
    const first = await screen.snapshot();
    const second = await screen.snapshot();
    expect(second.screened).toBe(first.screened); // same object: not screened (nor encoded) again
    expect(second.version).toBe(first.version);
    expect(first.screened.encoded).toHaveLength(2);

    // Another catalog (a tool changed, so its version did): screened again.
    infos = [infos[0]!, { ...infos[1]!, description: 'Adds numbers.', version: 'v2' }];
    const third = await screen.snapshot();
    expect(third.screened).not.toBe(first.screened);
    expect(third.version).not.toBe(first.version);
    expect(third.screened.tools.map((t) => t.description)).toEqual(['Echoes.', 'Adds numbers.']);
  });

  it('re-reads the adapter’s own quarantine list and redacts reasons on every snapshot', async () => {
    const catalog = staticCatalog('local', tools);
    let own = [{ source: 'a.yaml', rule: 'parse', reason: 'bad secret-123' }];
    const screen = new CatalogScreen({ catalog: () => catalog.catalog(), quarantined: async () => own }, 64 * 1024, (t) => t.replace('secret-123', '[redacted]'));
    expect((await screen.snapshot()).quarantined.map((q) => q.reason)).toEqual(['bad [redacted]']);
    own = [];
    expect((await screen.snapshot()).quarantined).toEqual([]);
  });
});
