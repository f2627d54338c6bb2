import { Importance, type ToolInfo } from '@toolhub/contracts';

/** A ToolInfo with only what a test cares about. */
export function tool(
  provider: string,
  name: string,
  description: string,
  extra: { path?: string; tags?: string[]; params?: Record<string, string>; importance?: Importance; version?: string } = {},
): ToolInfo {
  return {
    id: `${provider}:${name}`,
    provider,
    name,
    path: extra.path ?? '',
    description,
    inputSchema: extra.params
      ? { type: 'object', properties: Object.fromEntries(Object.entries(extra.params).map(([k, d]) => [k, { type: 'string', description: d }])) }
      : undefined,
    outputDescription: '',
    examples: [],
    importance: extra.importance ?? Importance.IMPORTANCE_NORMAL,
    version: extra.version ?? '',
    tags: extra.tags ?? [],
    defaultTimeoutMs: 0,
  };
}

/** A small catalog of three providers. */
export function catalog(): ToolInfo[] {
  return [
    tool('github', 'create_issue', 'Open a new issue in a repository. Returns the issue number.', { path: 'github/issues', params: { title: 'Issue title', body: 'Markdown body' } }),
    tool('github', 'list_issues', 'List the issues of a repository, newest first.', { path: 'github/issues' }),
    tool('github', 'merge_pull_request', 'Merge a pull request into its base branch.', { path: 'github/pulls' }),
    tool('local', 'read_file', 'Read the complete contents of a text file from disk.', { path: 'file', params: { path: 'Absolute path of the file' } }),
    tool('local', 'write_file', 'Write text to a file, replacing what it held.', { path: 'file' }),
    tool('local', 'get_weather', 'Current weather and forecast for a city.', { path: 'weather', tags: ['forecast'] }),
    tool('mcp', 'bing_search', '使用必应搜索指定的关键词，并返回搜索结果列表，包括标题、链接和摘要', { path: 'discovery' }),
    tool('mcp', 'stock_price', '查询股票的实时价格和历史行情', { path: 'finance' }),
    tool('mcp', 'send_email', 'Send an email message to one or more recipients.', { path: 'mail', params: { to: 'Recipient address', subject: 'Subject line' } }),
  ];
}
