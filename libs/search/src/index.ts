/**
 * @toolhub/search — the tool search index the registry serves as SearchTools: ranked keyword
 * search with field weights, fuzzy and prefix matching, English and CJK text, filters by provider
 * and path, several queries per call, suggestions when nothing matches. Built on MiniSearch.
 * Any new export added here becomes public API.
 */
export { ToolSearchIndex, type IndexChange } from './tool-search-index';
export type { ToolSearchRequest } from './request';
export { type SearchIndexOptions, type ResolvedSearchIndexOptions, type FieldWeights, searchIndexDefaults, withSearchDefaults } from './options';
export { type SearchField, SEARCH_FIELDS } from './documents';
export { type Analyzer, type AnalyzerOptions, createAnalyzer, splitIdentifier } from './analyzer';
export { type CjkSegmenter, cjkBigrams, createCjkSegmenter } from './cjk';
export { SYNONYM_GROUPS } from './lexicon';
export { type SearchErrorCode, SearchError, isSearchError } from './errors';
