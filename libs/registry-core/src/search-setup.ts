/** The registry's search settings from its configuration (shared by the registry app and the one-process mode). */
import { OpenAiEmbeddings } from '@toolhub/search';

import type { RegistryOptions } from './registry';

/** What the apps read from the environment about search. */
export interface SearchConfig {
  /** OpenAI-compatible API base URL; unset = lexical search only. */
  embeddingsUrl?: string;
  embeddingsModel: string;
  embeddingsKey?: string;
  /** Learning from use on or off. */
  searchLearning: boolean;
}

/** {@link RegistryOptions.search} for `config`: an embeddings client when a URL is set. */
export function searchOptions(config: SearchConfig): NonNullable<RegistryOptions['search']> {
  return {
    embedder: config.embeddingsUrl ? new OpenAiEmbeddings({ url: config.embeddingsUrl, model: config.embeddingsModel, apiKey: config.embeddingsKey }) : undefined,
    learning: config.searchLearning ? {} : false,
  };
}
