/** The hybrid search's status on the wire (GetStatus via the dispatcher, GetCatalogStatus). */
import type { SearchStatus } from '@toolhub/contracts';
import type { SearchStatusReport } from '@toolhub/search';

export function toWireSearchStatus(s: SearchStatusReport): SearchStatus {
  return {
    reported: true,
    defaultMode: s.defaultMode,
    effectiveMode: s.effectiveMode,
    embeddingsModel: s.model,
    tools: s.tools,
    toolsEmbedded: s.embedded,
    note: s.note,
    lastError: s.lastError.slice(0, 500),
    nextRetryUnixMs: s.nextRetryUnixMs,
  };
}
