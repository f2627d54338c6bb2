/**
 * A listing too large for one bus message (a recursive list of a 20,000-tool provider is several
 * MiB; NATS carries 1 MiB by default) is sent in parts: the caller asks again from `next_offset`
 * until it is 0. Only callers that say they accept parts get them; an older dispatcher gets the
 * whole listing (or, past the limit, the bus error it always got) rather than a silently cut one.
 */
import { AdapterListResponse, ToolHubError, ToolSummary } from '@toolhub/contracts';

/** Bytes a repeated message field adds around each element (tag + varint length), at most. */
const FIELD_OVERHEAD = 6;

/**
 * The part of `listed` that starts at tool `offset` and fits `budgetBytes` encoded (categories
 * ride with the first part). With `acceptParts` false, the whole listing.
 * @throws ToolHubError invalid_argument for an offset past the end of the listing.
 */
export function listingPart(listed: AdapterListResponse, budgetBytes: number, offset = 0, acceptParts = false): AdapterListResponse {
  if (!acceptParts) return listed;
  if (offset > listed.tools.length) {
    throw ToolHubError.invalidArgument(`List offset ${offset} is past the end of the listing (${listed.tools.length} tools); the catalog changed while it was being read, so list again from offset 0.`);
  }
  const categories = offset === 0 ? listed.categories : [];
  let size = AdapterListResponse.encode({ categories, tools: [] }).finish().byteLength + FIELD_OVERHEAD;
  let end = offset;
  for (; end < listed.tools.length; end++) {
    const need = ToolSummary.encode(listed.tools[end]!).finish().byteLength + FIELD_OVERHEAD;
    // Every part carries at least one tool, so a caller always gets further.
    if (end > offset && size + need > budgetBytes) break;
    size += need;
  }
  return { categories, tools: listed.tools.slice(offset, end), ...(end < listed.tools.length ? { nextOffset: end } : {}) };
}
