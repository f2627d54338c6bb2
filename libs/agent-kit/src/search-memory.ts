/**
 * Which search found which tool, so a later run of that tool can carry the search id back
 * (RunToolRequest.search_id) and the registry learns which tool an agent ran after which query.
 *
 * The kit keeps this itself instead of showing the id to the model: the model would have to copy
 * an opaque id into every tool_run (tokens, and a field in the cached meta-tool schema), and it
 * could not do so at all for tools it calls directly by their exposed name.
 */
import type { SearchToolsResponse } from '@toolhub/contracts';

import { AgentKitError } from './errors';

/** Options of {@link SearchMemory}. */
export interface SearchMemoryOptions {
  /**
   * How long a search id is attached to runs of its hits, in ms. The registry forgets a search
   * after an hour (its `searchTtlMs`), so a later run would teach it nothing. @default 3600000
   */
  ttlMs?: number;
  /** Most tools remembered; the oldest are forgotten first. @default 512 */
  maxTools?: number;
  /** Clock (tests). @default Date.now */
  now?: () => number;
}

interface Entry {
  searchId: string;
  at: number;
}

/**
 * Tool id → the search id of the latest search that returned it as a hit. One agent's memory
 * (the executor holds one): a client shared by many agents must not lend one agent's search to
 * another's run.
 */
export class SearchMemory {
  private readonly byTool = new Map<string, Entry>();
  private readonly o: Required<SearchMemoryOptions>;

  /** @throws AgentKitError invalid_options when ttlMs or maxTools is not a whole number ≥ 1. */
  constructor(options: SearchMemoryOptions = {}) {
    this.o = { ttlMs: options.ttlMs ?? 3_600_000, maxTools: options.maxTools ?? 512, now: options.now ?? Date.now };
    for (const key of ['ttlMs', 'maxTools'] as const) {
      const v = this.o[key];
      if (!Number.isInteger(v) || v < 1) throw new AgentKitError('invalid_options', `rememberSearches.${key} must be an integer ≥ 1; got ${String(options[key])}.`);
    }
  }

  /** Number of tools remembered. */
  get size(): number {
    return this.byTool.size;
  }

  /** Remembers the hits of a search answer (nothing when the server sent no search id). */
  rememberSearch(res: SearchToolsResponse): void {
    if (!res.searchId) return;
    const at = this.o.now();
    for (const hit of res.hits) {
      // Re-inserting moves the tool to the end of the Map's order: the latest search wins.
      this.byTool.delete(hit.id);
      this.byTool.set(hit.id, { searchId: res.searchId, at });
    }
    for (const [id] of this.byTool) {
      if (this.byTool.size <= this.o.maxTools) break;
      this.byTool.delete(id);
    }
  }

  /** The search id to send with a run of `toolId`, or '' when no recent search returned it. */
  searchIdFor(toolId: string): string {
    const e = this.byTool.get(toolId);
    if (!e) return '';
    if (this.o.now() - e.at > this.o.ttlMs) {
      this.byTool.delete(toolId);
      return '';
    }
    return e.searchId;
  }

  /**
   * Forgets `toolId` after a run that succeeded with `searchId`: one search teaches the registry
   * once per tool, so an agent calling a tool twenty times after one search does not count as
   * twenty searches. Runs that failed keep the id (the registry learns only from successful runs,
   * and the model usually retries with fixed arguments).
   */
  consumed(toolId: string, searchId: string): void {
    if (this.byTool.get(toolId)?.searchId === searchId) this.byTool.delete(toolId);
  }
}
