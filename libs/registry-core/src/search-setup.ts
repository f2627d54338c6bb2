/** The registry's search settings from its configuration (shared by the registry app and the one-process mode). */
import { zBoolean } from '@toolhub/config';
import { DEFAULT_EMBEDDINGS_MODEL, type Embedder, OnnxEmbeddings, type OnnxPrecision, OpenAiEmbeddings } from '@toolhub/search';
import { z } from 'zod';

import type { RegistryOptions } from './registry';

/** What the apps read from the environment about search. */
export interface SearchConfig {
  /** OpenAI-compatible API base URL; unset (and no model folder) = lexical search only. */
  embeddingsUrl?: string;
  /** Folder of an exported ONNX model (scripts/embeddings/export_onnx.py): embeddings in process; wins over the URL. */
  embeddingsModelDir?: string;
  embeddingsModel: string;
  /** With a model folder: the export that embeds queries (int8 default, float: the exact model). */
  embeddingsPrecision?: OnnxPrecision;
  embeddingsKey?: string;
  /** Learning from use on or off. */
  searchLearning: boolean;
}

/**
 * Config fields of {@link SearchConfig} (env TOOLHUB_EMBEDDINGS_URL, _MODEL, _KEY and
 * TOOLHUB_SEARCH_LEARNING), spread into the `defineConfig` of every app that runs a registry, so
 * the registry app and the one-process mode read search settings the same way.
 */
export function searchConfigFields() {
  return {
    embeddingsUrl: {
      env: 'TOOLHUB_EMBEDDINGS_URL',
      schema: z.string().url().optional(),
      description: 'OpenAI-compatible embeddings API base URL (e.g. http://127.0.0.1:8089/v1): hybrid search when set, lexical when not',
    },
    embeddingsModelDir: {
      env: 'TOOLHUB_EMBEDDINGS_MODEL_DIR',
      schema: z.string().min(1).optional(),
      description: 'Folder of an exported ONNX sentence model (bash scripts/services.sh embeddings-model): hybrid search with embeddings computed in this process (a query in a few ms); wins over TOOLHUB_EMBEDDINGS_URL',
    },
    embeddingsPrecision: {
      env: 'TOOLHUB_EMBEDDINGS_PRECISION',
      schema: z.enum(['int8', 'float']).optional(),
      description: 'With TOOLHUB_EMBEDDINGS_MODEL_DIR: which export embeds queries, int8 (model.int8.onnx, the default: about twice as fast, recall within 0.003 R@5) or float (model.onnx); tool texts always use the float model',
    },
    embeddingsModel: { env: 'TOOLHUB_EMBEDDINGS_MODEL', schema: z.string().min(1).default(DEFAULT_EMBEDDINGS_MODEL), description: 'Embeddings model name sent to the endpoint' },
    embeddingsKey: { env: 'TOOLHUB_EMBEDDINGS_KEY', schema: z.string().optional(), description: 'Bearer token of the embeddings endpoint', secret: true },
    searchLearning: { env: 'TOOLHUB_SEARCH_LEARNING', schema: zBoolean().default(true), description: 'Learn from which tool ran after which search (boosts it for similar searches)' },
  } as const;
}

/** The start banner's `search:` line: the mode and, when lexical, the one switch that turns hybrid on. */
export function searchBannerLine(config: SearchConfig): string {
  if (config.embeddingsModelDir) {
    return `hybrid (keywords + ${config.embeddingsModel} in process, from ${config.embeddingsModelDir}); tools are embedded in the background (lexical until then; GetStatus.search shows the share)`;
  }
  if (!config.embeddingsUrl) {
    return 'lexical (keywords). Hybrid: bash scripts/services.sh embeddings, then TOOLHUB_EMBEDDINGS_URL=http://127.0.0.1:8089/v1 npm start';
  }
  return `hybrid (keywords + ${config.embeddingsModel} at ${config.embeddingsUrl}); tools are embedded in the background (lexical until then, retried until the endpoint answers; GetStatus.search shows the share)`;
}

/** {@link RegistryOptions.search} for `config`: an embeddings client when a URL is set. */
export function searchOptions(config: SearchConfig): NonNullable<RegistryOptions['search']> {
  return { embedder: embedderOf(config), learning: config.searchLearning ? {} : false };
}

/** The in-process model when a folder is set, else the endpoint when a URL is, else none. */
function embedderOf(config: SearchConfig): Embedder | undefined {
  if (config.embeddingsModelDir) return new OnnxEmbeddings({ modelDir: config.embeddingsModelDir, model: config.embeddingsModel, queryPrecision: config.embeddingsPrecision });
  return config.embeddingsUrl ? new OpenAiEmbeddings({ url: config.embeddingsUrl, model: config.embeddingsModel, apiKey: config.embeddingsKey }) : undefined;
}
