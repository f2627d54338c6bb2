/** Validation of a search request: what an agent sent, checked and normalised in one place. */
import { assertProviderName, normalizePath, ToolHubError } from '@toolhub/contracts';

import type { ResolvedSearchIndexOptions } from './options';

/**
 * A search request. Field for field a `SearchToolsRequest` of the wire contract (where the empty
 * string and 0 mean "not set"), so the registry can pass a decoded request as it is.
 */
export interface ToolSearchRequest {
  /** One or more queries, answered together; blank ones are skipped. */
  queries: readonly string[];
  /** Only tools of this provider. */
  provider?: string;
  /** Only tools at or below this category path (`github` covers `github/issues`). */
  path?: string;
  /** Most hits returned; 0 or unset for the default, capped at the maximum. */
  limit?: number;
}

/** A request after validation. */
export interface CheckedRequest {
  /** [index in the request, query] of the non-blank queries. */
  queries: Array<[number, string]>;
  provider: string;
  path: string;
  limit: number;
  /** What was changed to serve the request (e.g. a long query cut to its prefix); '' when nothing. */
  note: string;
}

const EXAMPLE = '{"queries": ["create a github issue", "list pull requests"], "limit": 10}';

/** @throws ToolHubError invalid_argument naming the field and how to fix it. */
export function checkRequest(request: ToolSearchRequest, o: ResolvedSearchIndexOptions): CheckedRequest {
  const raw: unknown = request?.queries;
  if (!Array.isArray(raw) || raw.length === 0) {
    throw ToolHubError.invalidArgument(
      `tool_search needs at least one query: pass "queries" as a list of keywords or short descriptions of what the tool should do, e.g. ${EXAMPLE}.`,
      [{ field: 'queries', message: 'required: at least one query', expected: 'non-empty list of strings', example: '["send an email"]' }],
    );
  }
  if (raw.length > o.maxQueries) {
    throw ToolHubError.invalidArgument(`tool_search takes at most ${o.maxQueries} queries in one call; got ${raw.length}. Split them over several calls or merge similar ones.`, [
      { field: 'queries', message: `too many queries (${raw.length})`, expected: `at most ${o.maxQueries}`, example: '["send an email"]' },
    ]);
  }
  const queries: Array<[number, string]> = [];
  const cut: number[] = [];
  raw.forEach((q: unknown, i: number) => {
    if (typeof q !== 'string') {
      throw ToolHubError.invalidArgument(`Query ${i} of tool_search is a ${q === null ? 'null' : typeof q}, not a string.`, [
        { field: `queries[${i}]`, message: 'not a string', expected: 'string', example: '"send an email"' },
      ]);
    }
    // A long query (a task description with a pasted attachment) is searched on its prefix, cut at
    // a word boundary; only the byte cap of the edge (the gRPC message size) refuses a request.
    let text = q;
    if (text.length > o.maxQueryLength) {
      const head = text.slice(0, o.maxQueryLength);
      const space = head.search(/\s\S*$/);
      text = space > o.maxQueryLength / 2 ? head.slice(0, space) : head;
      cut.push(i);
    }
    if (text.trim() !== '') queries.push([i, text]);
  });
  if (queries.length === 0) {
    throw ToolHubError.invalidArgument(`Every query of tool_search is blank. Describe the tool you need in a few words, e.g. ${EXAMPLE}.`, [
      { field: 'queries', message: 'all queries are blank', expected: 'at least one non-blank string', example: '["send an email"]' },
    ]);
  }

  const limit = request.limit ?? 0;
  if (!Number.isInteger(limit) || limit < 0) {
    throw ToolHubError.invalidArgument(`limit of tool_search must be a whole number from 1 to ${o.maxLimit} (0 or unset for ${o.defaultLimit}); got ${JSON.stringify(limit)}.`, [
      { field: 'limit', message: 'not a non-negative integer', expected: `integer 0..${o.maxLimit}`, example: String(o.defaultLimit) },
    ]);
  }

  const provider = request.provider?.trim() ?? '';
  if (provider !== '') assertProviderName(provider);
  return {
    queries,
    provider,
    path: normalizePath(request.path ?? ''),
    limit: limit === 0 ? o.defaultLimit : Math.min(limit, o.maxLimit),
    note: cut.length
      ? `Quer${cut.length === 1 ? 'y' : 'ies'} ${cut.join(', ')} ${cut.length === 1 ? 'was' : 'were'} longer than ${o.maxQueryLength} characters and searched on the first ${o.maxQueryLength} only; put the key words first.`
      : '',
  };
}
