/**
 * @jest-environment ./libs/search/test/support/host-typed-arrays-environment.js
 *
 * In-process embeddings: the ONNX export of all-MiniLM-L6-v2 (scripts/embeddings/export_onnx.py)
 * run by onnxruntime-node gives the local embeddings server's vectors, truncates long texts the
 * same way, batches without changing a vector, and serves a hybrid search. Queries use the int8
 * export by default (model.int8.onnx: near the float vectors, not equal), tool texts the float
 * one. The export is made on first use (scripts/services.sh embeddings-model); a missing folder is
 * a clear error.
 */
import { join } from 'node:path';

import { SearchMode } from '@toolhub/contracts';
import { HybridSearch, isEmbeddingsError, OnnxEmbeddings, OpenAiEmbeddings, ToolSearchIndex } from '@toolhub/search';
import { exportedModelDir, type LocalEmbeddingsServer, startLocalEmbeddings } from '@toolhub/search/testing';

import { dot, expectHybridFindsByMeaning, removeModelFolders, withCard } from './embedding-helpers';
import { catalog } from './fixtures';

describe('in-process embeddings (ONNX)', () => {
  let server: LocalEmbeddingsServer | undefined;
  let onnx: OnnxEmbeddings;
  let byDefault: OnnxEmbeddings;

  beforeAll(async () => {
    onnx = new OnnxEmbeddings({ modelDir: exportedModelDir(), queryPrecision: 'float' });
    byDefault = new OnnxEmbeddings({ modelDir: exportedModelDir() });
    server = await startLocalEmbeddings();
  }, 660_000);
  afterAll(async () => {
    removeModelFolders();
    await server?.stop();
  });

  it("gives the local server's vectors, long texts (truncated at 256 tokens) included", async () => {
    const long = `Upload a file to a folder. ${'It keeps the name, the size, the owner and every other property as it was. '.repeat(60)}`;
    const texts = ['A man is eating food.', 'list all droplets in my account', '发送一封电子邮件', long];
    const [ours, theirs] = await Promise.all([onnx.embed(texts), new OpenAiEmbeddings({ url: server!.url }).embed(texts)]);
    expect(ours).toHaveLength(texts.length);
    for (let i = 0; i < texts.length; i++) {
      expect(ours[i]).toHaveLength(384);
      expect({ text: texts[i]!.slice(0, 40), cosine: dot(ours[i]!, theirs[i]!) }).toEqual({ text: texts[i]!.slice(0, 40), cosine: expect.closeTo(1, 4) });
    }
  }, 120_000);

  it("embeds queries with the int8 export by default, near the server's vectors, and tool texts with the float one, equal to them", async () => {
    expect(await byDefault.modelFile()).toBe(join(exportedModelDir(), 'model.int8.onnx'));
    expect(await byDefault.modelFile(true)).toBe(join(exportedModelDir(), 'model.onnx'));
    const texts = ['send an email to a colleague', 'who is on call right now', 'Find me the cheapest flight from Boston to Denver next Friday'];
    const [queries, tools, theirs] = await Promise.all([byDefault.embed(texts), byDefault.embed(texts, { background: true }), new OpenAiEmbeddings({ url: server!.url }).embed(texts)]);
    for (let i = 0; i < texts.length; i++) {
      const q = dot(queries[i]!, theirs[i]!);
      // Quantised weights move the vector a little (export_onnx.py refuses an export below 0.98).
      expect({ text: texts[i], near: q > 0.98, equal: q > 0.99999 }).toEqual({ text: texts[i], near: true, equal: false });
      expect({ text: texts[i], cosine: dot(tools[i]!, theirs[i]!) }).toEqual({ text: texts[i], cosine: expect.closeTo(1, 4) });
      expect(dot(queries[i]!, queries[i]!)).toBeCloseTo(1, 4);
    }
  }, 120_000);

  it('uses the float model for queries in a folder exported before the int8 file, and says how to get it when int8 is asked for', async () => {
    const old = withCard(exportedModelDir(), { int8: undefined }); // no model.int8.onnx linked either
    const fallback = new OnnxEmbeddings({ modelDir: old });
    expect(await fallback.modelFile()).toBe(join(old, 'model.onnx'));
    const [v] = await fallback.embed(['send an email to a colleague']);
    const [exact] = await onnx.embed(['send an email to a colleague']);
    expect(dot(v!, exact!)).toBeCloseTo(1, 5);
    const strict = new OnnxEmbeddings({ modelDir: old, queryPrecision: 'int8' });
    const err = await strict.embed(['x']).catch((e: unknown) => e);
    expect(isEmbeddingsError(err)).toBe(true);
    expect((err as Error).message).toMatch(/has no int8 export.*bash scripts\/services\.sh embeddings-model.*TOOLHUB_EMBEDDINGS_PRECISION=float/);
  }, 60_000);

  it('gives each text the same vector alone as in a batch of mixed lengths', async () => {
    const texts = ['short', 'a somewhat longer sentence about reading files from a disk', 'mid length text here'];
    for (const e of [onnx, byDefault]) {
      const batch = await e.embed(texts);
      for (let i = 0; i < texts.length; i++) {
        const [alone] = await e.embed([texts[i]!]);
        expect(dot(alone!, batch[i]!)).toBeCloseTo(1, 5);
      }
    }
  }, 60_000);

  it('answers a hybrid search by meaning', () => expectHybridFindsByMeaning(byDefault), 60_000);

  it('names the command that creates a missing model folder, and search stays lexical meanwhile', async () => {
    const missing = new OnnxEmbeddings({ modelDir: '/nonexistent/toolhub-model' });
    const err = await missing.embed(['x']).catch((e: unknown) => e);
    expect(isEmbeddingsError(err)).toBe(true);
    expect((err as Error).message).toMatch(/bash scripts\/services\.sh embeddings-model/);
    const index = new ToolSearchIndex();
    index.upsert(catalog());
    const search = new HybridSearch(index, { embedder: missing, retryMinMs: 60_000 });
    expect(await search.syncVectors()).toMatchObject({ embedded: 0 });
    const res = await search.search({ queries: ['read a file'] });
    expect(res.mode).toBe(SearchMode.SEARCH_MODE_LEXICAL);
    expect(res.hits[0]?.id).toBe('local:read_file');
    search.close();
  }, 60_000);

  it('refuses a folder that holds another model than the one configured', async () => {
    const other = new OnnxEmbeddings({ modelDir: exportedModelDir(), model: 'bge-small-en' });
    await expect(other.embed(['x'])).rejects.toThrow(/holds the model "all-MiniLM-L6-v2-toolhub", but "bge-small-en" is configured/);
  });
});
