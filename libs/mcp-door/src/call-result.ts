/**
 * RunTool answers and failures as MCP `tools/call` results. The text is agent-kit's (the same
 * LLM-ready wording as on the gRPC door: repairs as notes, failures with their fixes); images,
 * audio and resources travel as MCP content blocks, structured output as `structuredContent`.
 */
import { findToolHubCallError, formatFailure, formatRun } from '@toolhub/agent-kit';
import { canonicalJson, type ContentBlock, type RunToolResponse, toToolHubError } from '@toolhub/contracts';

import { asCallError } from './backend';

/** The MCP CallToolResult shape the door answers with. */
export interface DoorCallResult {
  [key: string]: unknown;
  content: Array<Record<string, unknown>>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

function mediaBlock(b: ContentBlock): Record<string, unknown> | undefined {
  if (b.image) return { type: 'image', data: Buffer.from(b.image.data).toString('base64'), mimeType: b.image.mimeType };
  if (b.audio) return { type: 'audio', data: Buffer.from(b.audio.data).toString('base64'), mimeType: b.audio.mimeType };
  if (b.resource && !b.resource.text && b.resource.blob.length > 0) {
    return { type: 'resource', resource: { uri: b.resource.uri, ...(b.resource.mimeType ? { mimeType: b.resource.mimeType } : {}), blob: Buffer.from(b.resource.blob).toString('base64') } };
  }
  return undefined;
}

/** A finished run (ok or a tool's own error) as a CallToolResult. */
export function runResult(res: RunToolResponse, requestedId: string, maxChars: number): DoorCallResult {
  // Media are sent as blocks, so the text part describes only the rest.
  const media = res.content.map(mediaBlock);
  const textual = { ...res, content: res.content.filter((_, i) => media[i] === undefined) };
  const formatted = formatRun(textual, requestedId, maxChars);
  const content: Array<Record<string, unknown>> = [];
  const hasText = textual.content.length > 0 || formatted.isError || res.fixes.length > 0 || res.structured !== undefined || media.every((m) => m === undefined);
  if (hasText) content.push({ type: 'text', text: formatted.content });
  for (const m of media) if (m) content.push(m);
  const result: DoorCallResult = { content };
  const structured: unknown = res.structured ?? res.content.find((b) => b.json !== undefined && b.json !== null && typeof b.json === 'object' && !Array.isArray(b.json))?.json;
  if (structured !== undefined && structured !== null && typeof structured === 'object' && !Array.isArray(structured)) {
    result.structuredContent = JSON.parse(canonicalJson(structured)) as Record<string, unknown>;
  }
  if (formatted.isError) result.isError = true;
  return result;
}

/** A failed call (refused, not found, timeout, …) as an `isError` result with agent-kit's text. */
export function failureResult(err: unknown, maxChars: number, advice?: string): DoorCallResult {
  const callErr = findToolHubCallError(err);
  const text = callErr
    ? formatFailure(callErr.code, callErr.message, callErr.info, advice)
    : (() => {
        const e = toToolHubError(err, 'the call failed inside the MCP door');
        return formatFailure(e.code, e.message, undefined, advice);
      })();
  return { content: [{ type: 'text', text: text.length > maxChars ? `${text.slice(0, maxChars)}\n[truncated: ${text.length - maxChars} more characters]` : text }], isError: true };
}

/** A RunTool that failed (refused, not found, timeout, …) as a `tools/call` answers it, sync or as a task's result. */
export function runFailureResult(err: unknown, maxChars: number): DoorCallResult {
  const callErr = asCallError('RunTool', err);
  return failureResult(callErr, maxChars, callErr.code === 'invalid_argument' ? 'Check the arguments against tool_info and call again.' : undefined);
}
