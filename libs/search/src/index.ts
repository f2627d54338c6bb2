/**
 * @toolhub/search — the tool search index the registry serves as SearchTools: ranked keyword
 * search with field weights, fuzzy and prefix matching, English and CJK text, filters by provider
 * and path, several queries per call, suggestions when nothing matches (MiniSearch); fused with a
 * dense ranking from an OpenAI-compatible embeddings endpoint when one is configured, and learning
 * from which tool ran after which search. Any new export added here becomes public API.
 */
export { ToolSearchIndex, type IndexChange, type RankedTool, type RankHooks } from './tool-search-index';
export { HybridSearch, type HybridSearchOptions, type HybridSearchRequest, type LearningReport, type SearchLogger, type SearchStatusReport, type VectorStore, type VectorSyncReport } from './hybrid-search';
export { DenseIndex } from './dense-index';
export { type FusionOptions, fusionDefaults, fusionForModel, fuse, MODEL_FUSION, withFusionDefaults } from './fusion';
export { UsageMemory, type UsageMemoryOptions, type UsageMemorySettings, type LearnedObservation, type LearnedUse, type LearningRun, type WeightedUse } from './usage-memory';
export { DEFAULT_EMBEDDINGS_MODEL, type Embedder, type EmbedOptions, type EmbeddingsErrorCode, EmbeddingsError, isEmbeddingsError, normalize } from './embeddings/embedder';
export { OpenAiEmbeddings, type OpenAiEmbeddingsOptions } from './embeddings/openai-embeddings';
export { OnnxEmbeddings, type OnnxEmbeddingsOptions, type OnnxPrecision } from './embeddings/onnx-embeddings';
export { type OnnxModelCard, parseModelCard } from './embeddings/onnx-model-card';
export { type EmbedInput, type Pooling, poolSentences } from './embeddings/pooling';
export { embeddingKey } from './embeddings/key';
export { QueryFirstGate } from './embeddings/query-first-gate';
export type { ToolSearchRequest } from './request';
export { type SearchIndexOptions, type ResolvedSearchIndexOptions, type FieldWeights, searchIndexDefaults, withSearchDefaults } from './options';
export { type SearchField, SEARCH_FIELDS } from './documents';
export { embeddingText } from './embedding-text';
export { type Analyzer, type AnalyzerOptions, createAnalyzer, splitIdentifier } from './analyzer';
export { type CjkSegmenter, cjkBigrams, createCjkSegmenter } from './cjk';
export { SYNONYM_GROUPS } from './lexicon';
export { type SearchErrorCode, SearchError, isSearchError } from './errors';
