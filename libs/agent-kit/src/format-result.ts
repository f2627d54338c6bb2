/**
 * Compact, LLM-readable text for meta-tool results: one line per listed tool or search hit, tool
 * info as description plus compact JSON Schema, run output as text, and errors that say what went
 * wrong and how to change the call. Every token here is paid for in the model's context.
 */
import { canonicalJson, type ContentBlock, type ErrorInfo, errorCodeFromProto, ErrorCode, type ListToolsResponse, RunStatus, type RunToolResponse, type SearchToolsResponse, type ToolHubErrorCode, type ToolInfo } from '@toolhub/contracts';

import { normalizeInputSchema } from './render';

const SUMMARY_CHARS = 160;

/** Cuts `text` to `max` characters, saying how much was left out. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[truncated: ${text.length - max} more characters]`;
}

function oneLine(text: string, max = SUMMARY_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** A `tool_list` result. */
export function formatListing(res: ListToolsResponse, atRoot: boolean): string {
  const lines: string[] = [];
  if (res.categories.length > 0) {
    const label = atRoot ? 'providers' : 'categories';
    lines.push(`${label}: ${res.categories.map((c) => `${atRoot ? c.name : c.path}/ (${c.toolCount})`).join(', ')}`);
  }
  for (const t of res.tools) lines.push(`${t.id} - ${oneLine(t.summary)}${t.path ? ` [${t.path}]` : ''}`);
  if (lines.length === 0) lines.push('(empty)');
  if (res.hint) lines.push(`next: ${res.hint}`);
  return lines.join('\n');
}

function annotationsOf(info: ToolInfo): string {
  const a = info.annotations;
  if (!a) return '';
  const flags = [a.readOnly && 'read-only', a.destructive && 'destructive', a.idempotent && 'idempotent', a.openWorld && 'open-world'].filter(Boolean);
  return flags.length ? ` (${flags.join(', ')})` : '';
}

/**
 * A `tool_info` result. `exposedAs` is the function name the tool can now be called by directly
 * (undefined when it was not exposed, e.g. over the token budget).
 */
export function formatInfo(info: ToolInfo, exposedAs: string | undefined): string {
  const lines = [`${info.id}${info.path ? ` [${info.path}]` : ''}${annotationsOf(info)}`, info.description.trim()];
  const schema = normalizeInputSchema(info.inputSchema);
  lines.push(`input: ${canonicalJson(schema)}`);
  if (info.outputDescription) lines.push(`output: ${oneLine(info.outputDescription, 400)}`);
  const ex = info.examples[0];
  if (ex) lines.push(`example: ${canonicalJson(ex.arguments ?? {})}${ex.result ? ` -> ${oneLine(ex.result, 200)}` : ''}`);
  const viaRun = `tool_run {"provider":${JSON.stringify(info.provider)},"name":${JSON.stringify(info.name)},"arguments":{...}}`;
  lines.push(exposedAs ? `call: ${exposedAs} directly, or ${viaRun}` : `call: ${viaRun}`);
  return lines.join('\n');
}

function blockText(b: ContentBlock): string {
  if (b.text !== undefined) return b.text;
  if (b.json !== undefined) return canonicalJson(b.json);
  if (b.image) return `[image ${b.image.mimeType}, ${b.image.data.length} bytes]`;
  if (b.audio) return `[audio ${b.audio.mimeType}, ${b.audio.data.length} bytes]`;
  if (b.resource) {
    const r = b.resource;
    return r.text ? `[resource ${r.uri}]\n${r.text}` : `[resource ${r.uri}${r.mimeType ? ` ${r.mimeType}` : ''}${r.blob.length ? `, ${r.blob.length} bytes` : ''}]`;
  }
  return '';
}

/** A `tool_run` result (or a direct call of a discovered tool). */
export function formatRun(res: RunToolResponse, requestedId: string, maxChars: number): { content: string; isError: boolean } {
  const lines: string[] = [];
  const isError = res.status === RunStatus.RUN_STATUS_TOOL_ERROR;
  if (isError) lines.push(`error (the tool reported a failure): ${res.error?.message || 'no message'}`);
  if (isError && res.error) lines.push(...detailLines(res.error, errorCodeFromProto(res.error.code)));
  for (const f of res.fixes) lines.push(`note: argument ${f.field} was repaired: ${f.description}`);
  if (res.servedBy && res.servedBy !== requestedId) lines.push(`note: served by ${res.servedBy} (fallback for ${requestedId})`);
  let body = res.content.map(blockText).filter((t) => t !== '').join('\n');
  if (body === '' && res.structured !== undefined) body = canonicalJson(res.structured);
  if (body !== '') lines.push(body);
  else if (!isError) lines.push('(no output)');
  return { content: truncate(lines.join('\n'), maxChars), isError };
}

/** A `tool_search` result. The search id is not shown: the executor attaches it to later runs itself. */
export function formatSearch(res: SearchToolsResponse): string {
  if (res.hits.length === 0) {
    const sugg = res.suggestions.length ? ` Close names: ${res.suggestions.join(', ')}.` : '';
    return `no tools matched.${sugg} Try other or fewer words, or browse with tool_list.`;
  }
  // matched_on is filled only when the request asked to explain (ExecutorOptions.explainSearch).
  const lines = res.hits.map((h) => `${h.id} - ${oneLine(h.summary)}${h.path ? ` [${h.path}]` : ''}${h.matchedOn ? ` (matched: ${h.matchedOn})` : ''}`);
  if (res.suggestions.length) lines.push(`see also: ${res.suggestions.join(', ')}`);
  lines.push('next: tool_info {"name":"<id>"} for the schema of the best match');
  return lines.join('\n');
}

function detailLines(info: ErrorInfo, code: ToolHubErrorCode): string[] {
  const lines: string[] = [];
  for (const v of info.violations) {
    const parts = [`field ${v.field || '/'}: ${v.message}`];
    if (v.expected) parts.push(`expected ${v.expected}`);
    if (v.example) parts.push(`e.g. ${v.example}`);
    lines.push(parts.join('; '));
  }
  const missing = info.suggestions.filter((s) => !info.message.includes(s));
  if (missing.length) lines.push(`${code === 'not_found' ? 'did you mean' : 'try'}: ${info.suggestions.join(', ')}`);
  // The dispatcher's not_found messages already point to tool_list; add the path only where they do not.
  if (code === 'not_found' && info.parentPath && !info.message.includes('tool_list')) lines.push(`nearest category: ${info.parentPath} (tool_list shows what is there)`);
  for (const f of info.fixes) lines.push(`repaired: ${f.field}: ${f.description}`);
  if (info.retryable) lines.push(info.retryAfterMs > 0 ? `retry: the same call may succeed after ${info.retryAfterMs} ms` : 'retry: the same call may succeed later');
  return lines;
}

/** A failed ToolHub call as text: code, message, then the fixes the model can apply. */
export function formatFailure(code: ToolHubErrorCode, message: string, info: ErrorInfo | undefined, advice?: string): string {
  const lines = [`error ${code}: ${message}`];
  if (info) lines.push(...detailLines(info, info.code === ErrorCode.ERROR_CODE_UNSPECIFIED ? code : errorCodeFromProto(info.code)));
  if (advice) lines.push(advice);
  return lines.join('\n');
}
