/**
 * PreviewPreloadSet: the preload set a proposed list would give agents (unrestricted view), next to
 * the current one, with fingerprints and estimated tokens, so an operator sees the change before
 * applying it. Reads only.
 */
import { buildPreloadSet, estimateTokens } from '@toolhub/agent-kit';
import { parseToolId, type PreloadFormat, type PreviewPreloadSetResponse, ToolHubError, type ToolInfo } from '@toolhub/contracts';
import type { RegistryStore } from '@toolhub/store';

import { toToolInfo } from './convert';

/** Most ids a proposal may hold (a preload list is a handful of tools; this bounds the work). */
const MAX_PROPOSED = 500;

async function setOf(store: RegistryStore, ids: readonly string[], format: PreloadFormat) {
  const tools: ToolInfo[] = [];
  const leftOut: string[] = [];
  for (const id of ids) {
    const ref = parseToolId(id);
    const t = ref ? await store.getTool(ref.provider, ref.name) : undefined;
    if (t?.enabled) tools.push(toToolInfo(t));
    else leftOut.push(id);
  }
  const set = buildPreloadSet(tools, format);
  return { set, tokens: estimateTokens(set.rendered), leftOut };
}

export async function previewPreloadSet(store: RegistryStore, toolIds: readonly string[], format: PreloadFormat): Promise<PreviewPreloadSetResponse> {
  if (toolIds.length > MAX_PROPOSED) {
    throw ToolHubError.invalidArgument(`A proposed preload list holds at most ${MAX_PROPOSED} tools; this one has ${toolIds.length}.`, [{ field: 'tool_ids', message: 'too many', expected: `at most ${MAX_PROPOSED}` }]);
  }
  const list = await store.getPreloadList();
  const [current, proposed] = await Promise.all([setOf(store, list.toolIds, format), setOf(store, toolIds, format)]);
  return { current: current.set, proposed: proposed.set, currentTokens: current.tokens, proposedTokens: proposed.tokens, leftOut: proposed.leftOut };
}
