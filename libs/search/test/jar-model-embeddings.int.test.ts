/**
 * @jest-environment ./libs/search/test/support/host-typed-arrays-environment.js
 *
 * In-process embeddings with the ONNX models of langchain4j's Maven Central jars
 * (scripts/embeddings/jar-models.json): graphs that take token_type_ids and answer token states,
 * pooled as the folder's card says (bge: CLS, e5: mean) with the card's query/document prefixes
 * (e5: "query: " / "passage: "). The jars are fetched by scripts/test-all.sh (SHA-256 pinned; the
 * services.sh call below is then a no-op) and fail loudly when Maven Central cannot be reached.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { OnnxEmbeddings } from '@toolhub/search';
import { exportedModelDir } from '@toolhub/search/testing';

import { dot, expectHybridFindsByMeaning, removeModelFolders, withCard } from './embedding-helpers';

afterAll(removeModelFolders);

describe.each(['bge-small-en-v1.5-q', 'e5-small-v2-q'])('jar-published model %s in process', (model) => {
  let dir: string;
  let onnx: OnnxEmbeddings;
  beforeAll(() => {
    dir = exportedModelDir(model);
    onnx = new OnnxEmbeddings({ modelDir: dir, model });
  }, 300_000);

  it('gives unit vectors of 384 dimensions that put related sentences nearer', async () => {
    const [eat, bread, mail] = await onnx.embed(['A man is eating food.', 'A man is eating a piece of bread.', 'Send an email to the whole team.'], { input: 'document' });
    for (const v of [eat!, bread!, mail!]) {
      expect(v).toHaveLength(384);
      expect(dot(v, v)).toBeCloseTo(1, 4);
    }
    expect(dot(eat!, bread!)).toBeGreaterThan(dot(eat!, mail!) + 0.05);
  }, 60_000);

  it('gives a text nearly the same vector alone as in a batch of mixed lengths (int8: activations quantised per run)', async () => {
    const texts = ['short', 'a somewhat longer sentence about reading files from a disk', 'mid length text here'];
    const batch = await onnx.embed(texts, { input: 'document' });
    for (let i = 0; i < texts.length; i++) {
      const [alone] = await onnx.embed([texts[i]!], { input: 'document' });
      expect(dot(alone!, batch[i]!)).toBeGreaterThan(0.99);
    }
  }, 60_000);

  it("pools as the card says: the other pooling gives other vectors", async () => {
    const card = JSON.parse(readFileSync(join(dir, 'toolhub-model.json'), 'utf8')) as { pooling: string };
    const other = new OnnxEmbeddings({ modelDir: withCard(dir, { pooling: card.pooling === 'cls' ? 'mean' : 'cls' }), model });
    const text = ['Merge a pull request into its base branch.'];
    const [a] = await onnx.embed(text, { input: 'document' });
    const [b] = await other.embed(text, { input: 'document' });
    expect(dot(a!, b!)).toBeLessThan(0.98);
  }, 60_000);

  it('answers a hybrid search by meaning', () => expectHybridFindsByMeaning(onnx), 60_000);
});

describe('query and document prefixes (e5-small-v2-q: "query: " / "passage: ")', () => {
  it('embeds a query and a tool text differently, and the same once the card has no prefixes', async () => {
    const dir = exportedModelDir('e5-small-v2-q');
    const text = ['list the open issues of a repository'];
    const e5 = new OnnxEmbeddings({ modelDir: dir, model: 'e5-small-v2-q' });
    const [q, d] = [(await e5.embed(text, { input: 'query' }))[0]!, (await e5.embed(text, { input: 'document' }))[0]!];
    expect(dot(q, d)).toBeLessThan(0.98);
    // Tool texts are the background calls when no input is named; queries the others.
    expect(dot((await e5.embed(text, { background: true }))[0]!, d)).toBeCloseTo(1, 5);
    expect(dot((await e5.embed(text))[0]!, q)).toBeCloseTo(1, 5);
    const bare = new OnnxEmbeddings({ modelDir: withCard(dir, { queryPrefix: '', documentPrefix: '' }), model: 'e5-small-v2-q' });
    const [bq, bd] = [(await bare.embed(text, { input: 'query' }))[0]!, (await bare.embed(text, { input: 'document' }))[0]!];
    expect(dot(bq, bd)).toBeCloseTo(1, 5);
    expect(dot(bq, q)).toBeLessThan(0.98);
  }, 120_000);
});
