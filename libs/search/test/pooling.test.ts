/**
 * Pooling token states into sentence vectors, and the model card that says how (for the
 * jar-published ONNX models, whose graphs stop at last_hidden_state).
 */
import { type EmbeddingsError, parseModelCard, poolSentences } from '@toolhub/search';

import { prefixFor } from '../src/embeddings/onnx-model-card';

const close = (v: Float32Array) => Array.from(v, (x) => Math.round(x * 1e6) / 1e6);

describe('poolSentences', () => {
  // 2 rows × 3 token positions × 2 dims; row 0 has 2 real tokens, row 1 all 3.
  const hidden = new Float32Array([
    3, 4, /**/ 1, 0, /**/ 100, 100, // row 0: the third position is padding
    0, 2, /**/ 0, 4, /**/ 6, 0,
  ]);
  const dims = [2, 3, 2];

  it('mean: averages the real tokens only (padding left out), then unit length', () => {
    const [a, b] = poolSentences(hidden, dims, [2, 3], 'mean');
    // row 0: mean of (3,4) and (1,0) = (2,2) -> (0.707107, 0.707107); the (100,100) padding would swamp it
    expect(close(a!)).toEqual([0.707107, 0.707107]);
    // row 1: mean (2,2) as well
    expect(close(b!)).toEqual([0.707107, 0.707107]);
  });

  it('cls: the first token state, unit length', () => {
    const [a, b] = poolSentences(hidden, dims, [2, 3], 'cls');
    expect(close(a!)).toEqual([0.6, 0.8]);
    expect(close(b!)).toEqual([0, 1]);
  });

  it('refuses states that do not fit the rows', () => {
    expect(() => poolSentences(hidden, [2, 3, 2], [2], 'mean')).toThrow(/shape \[2, 3, 2\] do not fit 1 rows/);
    expect(() => poolSentences(hidden.subarray(1), dims, [2, 3], 'cls')).toThrow(RangeError);
  });
});

describe('parseModelCard', () => {
  it('reads an exported MiniLM card (the graph pools: no pooling, no prefixes)', () => {
    expect(parseModelCard({ model: 'all-MiniLM-L6-v2', dimensions: 384, maxTokens: 256, checkedCosine: 1 }, 'card.json')).toEqual({
      model: 'all-MiniLM-L6-v2',
      dimensions: 384,
      maxTokens: 256,
      queryPrefix: '',
      documentPrefix: '',
    });
  });

  it("reads a jar model's pooling and prefixes, and picks the prefix by kind of input", () => {
    const card = parseModelCard({ model: 'e5-small-v2-q', dimensions: 384, maxTokens: 256, pooling: 'mean', queryPrefix: 'query: ', documentPrefix: 'passage: ' }, 'card.json');
    expect(card.pooling).toBe('mean');
    expect(prefixFor(card, 'query')).toBe('query: ');
    expect(prefixFor(card, 'document')).toBe('passage: ');
  });

  it('refuses an unknown pooling, a missing model or dimensions, with the fix in the message', () => {
    const bad = (json: Record<string, unknown>) => {
      try {
        parseModelCard(json, '/m/toolhub-model.json');
      } catch (err) {
        return { code: (err as EmbeddingsError).code, message: (err as Error).message };
      }
      return undefined;
    };
    expect(bad({ model: 'x', dimensions: 384, pooling: 'max' })).toEqual({ code: 'bad_response', message: expect.stringMatching(/pooling "max"; it must be "mean" or "cls".*services\.sh embeddings-model/) });
    expect(bad({ dimensions: 384 })).toEqual({ code: 'bad_response', message: expect.stringMatching(/does not name a model/) });
    expect(bad({ model: 'x', dimensions: 0 })).toEqual({ code: 'bad_response', message: expect.stringMatching(/dimensions/) });
    expect(bad({ model: 'x', dimensions: 384, maxTokens: 1 })).toEqual({ code: 'bad_response', message: expect.stringMatching(/maxTokens 1/) });
  });
});
