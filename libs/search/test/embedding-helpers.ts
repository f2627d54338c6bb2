/** What the embedding integration tests share: cosine of unit vectors, model folders with a changed card, the hybrid check. */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SearchMode } from '@toolhub/contracts';
import { type Embedder, HybridSearch, ToolSearchIndex } from '@toolhub/search';

import { catalog, tool } from './fixtures';

/** Dot product: the cosine of two unit vectors. */
export const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);

const made: string[] = [];

/**
 * The model files of `dir` (links, nothing copied) under its card changed by `change` (a key set
 * to undefined is left out). Delete them with {@link removeModelFolders}.
 */
export function withCard(dir: string, change: Record<string, unknown>, files = ['model.onnx', 'tokenizer.json', 'tokenizer_config.json']): string {
  const copy = mkdtempSync(join(tmpdir(), 'toolhub-card-'));
  for (const f of files) symlinkSync(join(dir, f), join(copy, f));
  const card = JSON.parse(readFileSync(join(dir, 'toolhub-model.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(copy, 'toolhub-model.json'), JSON.stringify({ ...card, ...change }));
  made.push(copy);
  return copy;
}

/** Deletes every folder {@link withCard} made. */
export function removeModelFolders(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A hybrid search with `embedder` finds a tool by meaning with no shared keyword ("e-mail" → "letter"). */
export async function expectHybridFindsByMeaning(embedder: Embedder): Promise<void> {
  const index = new ToolSearchIndex();
  index.upsert([...catalog(), tool('post', 'deliver_letter', 'Deliver a letter to a recipient inbox.')]);
  const search = new HybridSearch(index, { embedder });
  try {
    expect(await search.syncVectors()).toMatchObject({ missing: 0 });
    const res = await search.search({ queries: ['write an e-mail to a colleague'], limit: 3 });
    expect(res.mode).toBe(SearchMode.SEARCH_MODE_HYBRID);
    expect(res.note).toBe('');
    expect(res.hits.map((h) => h.id)).toContain('post:deliver_letter');
  } finally {
    search.close();
  }
}
