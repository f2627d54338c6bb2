/**
 * @jest-environment ./libs/search/test/support/host-typed-arrays-environment.js
 *
 * The registry's search settings: TOOLHUB_EMBEDDINGS_PRECISION picks the export that embeds
 * queries in process (int8 by default, float on request), and a value it does not know is refused
 * by name. The model folder is the real export (scripts/services.sh embeddings-model).
 */
import { join } from 'node:path';

import { defineConfig, isConfigError } from '@toolhub/config';
import { OnnxEmbeddings } from '@toolhub/search';
import { exportedModelDir } from '@toolhub/search/testing';

import { searchConfigFields, searchOptions } from '../src';

const config = defineConfig(searchConfigFields());

describe('search settings: query precision of the in-process model', () => {
  it.each([
    [undefined, 'model.int8.onnx'],
    ['int8', 'model.int8.onnx'],
    ['float', 'model.onnx'],
  ])('TOOLHUB_EMBEDDINGS_PRECISION=%s embeds queries with %s and tool texts with model.onnx', async (precision, file) => {
    const dir = exportedModelDir();
    const loaded = config.load({ env: { TOOLHUB_EMBEDDINGS_MODEL_DIR: dir, ...(precision ? { TOOLHUB_EMBEDDINGS_PRECISION: precision } : {}) } });
    const { embedder } = searchOptions(loaded);
    expect(embedder).toBeInstanceOf(OnnxEmbeddings);
    expect(await (embedder as OnnxEmbeddings).modelFile()).toBe(join(dir, file));
    expect(await (embedder as OnnxEmbeddings).modelFile(true)).toBe(join(dir, 'model.onnx'));
  }, 600_000);

  it('refuses a precision it does not know, naming the variable and the choices', () => {
    let err: unknown;
    try {
      config.load({ env: { TOOLHUB_EMBEDDINGS_PRECISION: 'fp16' } });
    } catch (e) {
      err = e;
    }
    expect(isConfigError(err)).toBe(true);
    expect((err as Error).message).toMatch(/TOOLHUB_EMBEDDINGS_PRECISION/);
    expect((err as Error).message).toMatch(/int8/);
  });
});
