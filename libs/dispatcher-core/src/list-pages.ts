/**
 * Pages of a ListTools answer: a recursive listing of a large provider (the real vendor OpenAPI
 * documents hold over a thousand tools) must never become one reply above the clients' 4 MiB
 * receive limit. Tools are ordered by path, then name (the adapter SDK's order, so an unpaged answer
 * reads as before); categories come on the first page only.
 */
import { type AdapterListResponse, Category, compareKeys, LIST_REPLY_BUDGET_BYTES, type ListToolsRequest, type ListToolsResponse, paginate, ToolSummary } from '@toolhub/contracts';

/** The adapter SDK's order (path, then name, by localeCompare), with a code-unit tie-break so it is total. */
function compareSummaryKeys(a: readonly string[], b: readonly string[]): number {
  return (a[0] ?? '').localeCompare(b[0] ?? '') || (a[1] ?? '').localeCompare(b[1] ?? '') || compareKeys(a, b);
}

/**
 * The page `req` asks for of `res` (the whole listing of `req.provider` under `req.path`), with
 * `hint(listing)` as the hint and, when another page follows, how to ask for it.
 * @throws ToolHubError invalid_argument for a bad or expired token; failed_precondition when an
 *   unpaged listing is over the reply budget (see `paginate` in @toolhub/contracts).
 */
export function pageOfListing(req: ListToolsRequest, res: AdapterListResponse, hint: (res: AdapterListResponse) => string, budgetBytes = LIST_REPLY_BUDGET_BYTES): ListToolsResponse {
  const key = (t: ToolSummary) => [t.path, t.name];
  const tools = [...res.tools].sort((a, b) => compareSummaryKeys(key(a), key(b)));
  const whole = { categories: res.categories, tools };
  const fullHint = hint(whole);
  const page = paginate(tools, req, {
    rpc: 'ListTools',
    scope: `provider=${JSON.stringify(req.provider)} path=${JSON.stringify(req.path)} recursive=${req.recursive}`,
    key,
    compare: compareSummaryKeys,
    size: (t) => ToolSummary.encode(t).finish().length,
    label: (t) => `tool ${t.id}`,
    // Categories come on the first page only; the hint (on every page) is reserved there, doubled for the page note.
    firstPageBytes: res.categories.reduce((n, c) => n + 8 + Category.encode(c).finish().length, 0) + Buffer.byteLength(fullHint) * 2,
    budgetBytes,
  });
  const categories = page.start === 0 ? res.categories : [];
  const more = page.nextPageToken
    ? ` This page holds tools ${page.start + 1} to ${page.start + page.items.length} of ${page.total}; for the next, call ListTools again with the same provider, path and recursive and page_token=${JSON.stringify(page.nextPageToken)}.`
    : '';
  return { categories, tools: page.items, hint: fullHint + more, nextPageToken: page.nextPageToken, total: page.total };
}
