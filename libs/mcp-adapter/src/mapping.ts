/**
 * MCP ↔ ToolHub shapes: an MCP tool becomes a ToolInfo (schema with snake_case parameters,
 * annotations, output schema as prose), and an MCP call result becomes a ToolResult with its text,
 * image, audio and resource blocks carried through.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { SecretRedactor } from '@toolhub/config';
import { createParamNameMap, fitDescription, type JsonSchema, type ParamNameMap, renameParamsInText, schemaRuleViolation, type ToolResult } from '@toolhub/adapter-sdk';
import { type ContentBlock, contentHash, importanceFromName, ToolHubError, type ToolInfo, toolId } from '@toolhub/contracts';

import type { McpServerConfig } from './config';

/** One MCP tool as the adapter serves it. */
export interface McpToolEntry {
  readonly alias: string;
  /** The server's own name for the tool. */
  readonly native: string;
  readonly info: ToolInfo;
  /** Maps the agent's snake_case arguments back to the server's names. */
  readonly params: ParamNameMap;
  /** Read-only or idempotent: safe to send again when the connection dropped mid-call. */
  readonly retrySafe: boolean;
}

/**
 * An entry, plus the reason parameter names were left native (a collision), if any; or why the
 * tool is left out (quarantined): a schema deeper or larger than the tool rules allow.
 */
export type ToolEntryResult =
  | { readonly entry: McpToolEntry; readonly problem?: string; readonly quarantined?: undefined }
  | { readonly entry?: undefined; readonly quarantined: { readonly rule: string; readonly reason: string } };

/** Drops a top-level `$schema`: ToolHub validates with one dialect, and a draft-07 URI would make it fail. */
function withoutDialect(schema: unknown): JsonSchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { type: 'object' };
  const { $schema: _dialect, ...rest } = schema as JsonSchema;
  return rest;
}

/** Builds the ToolInfo of one MCP tool mounted under `server`, named `name`. */
export function toToolEntry(provider: string, server: McpServerConfig, tool: Tool, name: string): ToolEntryResult {
  // Checked first, without recursion: a 2,000-level schema must not reach the recursive steps below.
  const broken = schemaRuleViolation(tool.inputSchema);
  if (broken) return { quarantined: broken };
  const input = withoutDialect(tool.inputSchema);
  let params: ParamNameMap;
  let problem: string | undefined;
  try {
    params = createParamNameMap(input, { normalize: server.normalizeParams, subject: `tool ${JSON.stringify(name)} (MCP server ${JSON.stringify(server.alias)}, tool ${JSON.stringify(tool.name)})` });
  } catch (err) {
    if (!(err instanceof ToolHubError)) throw err;
    // Reported now, at start-up; the tool stays usable with the server's own parameter names.
    problem = `${err.message} Its parameters keep their native names.`;
    params = createParamNameMap(input, { normalize: false });
  }
  const a = tool.annotations ?? {};
  // The description names parameters as the schema does (`old_text`, not the server's `oldText`).
  const raw = (typeof tool.description === 'string' ? tool.description : '').trim() || tool.title || a.title || `Tool ${tool.name} of the MCP server ${server.alias}.`;
  const description = fitDescription(renameParamsInText(raw, params.renames));
  const outputDescription =
    tool.outputSchema && !schemaRuleViolation(tool.outputSchema) ? fitDescription(`Returns structured JSON matching this schema: ${JSON.stringify(withoutDialect(tool.outputSchema))}`) : '';
  const annotations = { readOnly: a.readOnlyHint, destructive: a.destructiveHint, idempotent: a.idempotentHint, openWorld: a.openWorldHint };
  const tags = ['mcp', server.alias];
  const described = { name, path: server.mount, description, inputSchema: params.schema, outputDescription, importance: server.importance, annotations, tags, defaultTimeoutMs: server.timeoutMs };
  const info: ToolInfo = {
    id: toolId(provider, name),
    provider,
    name,
    path: server.mount,
    description,
    inputSchema: params.schema,
    outputDescription,
    examples: [],
    importance: importanceFromName(server.importance),
    annotations,
    version: contentHash(described),
    tags,
    defaultTimeoutMs: server.timeoutMs,
    ...(tool.name !== name ? { sourceName: tool.name } : {}),
    // MCP clients check a result's structuredContent against it: passed through as the server wrote it.
    ...(tool.outputSchema && !schemaRuleViolation(tool.outputSchema) ? { outputSchemaJson: JSON.stringify(withoutDialect(tool.outputSchema)) } : {}),
  };
  return { entry: { alias: server.alias, native: tool.name, info, params, retrySafe: a.readOnlyHint === true || a.idempotentHint === true }, problem };
}

type McpContent = CallToolResult['content'][number];

/** One MCP content block as a ToolHub content block. */
export function toContentBlock(block: McpContent): ContentBlock {
  switch (block.type) {
    case 'text':
      return { text: block.text };
    case 'image':
      return { image: { mimeType: block.mimeType, data: Buffer.from(block.data, 'base64') } };
    case 'audio':
      return { audio: { mimeType: block.mimeType, data: Buffer.from(block.data, 'base64') } };
    case 'resource': {
      const r = block.resource;
      return {
        resource: {
          uri: r.uri,
          mimeType: r.mimeType ?? '',
          text: 'text' in r && typeof r.text === 'string' ? r.text : '',
          blob: 'blob' in r && typeof r.blob === 'string' ? Buffer.from(r.blob, 'base64') : Buffer.alloc(0),
        },
      };
    }
    case 'resource_link':
      // A link carries no contents: a resource block with the uri and type, and empty text and blob.
      return { resource: { uri: block.uri, mimeType: block.mimeType ?? '', text: '', blob: Buffer.alloc(0) } };
    default:
      return { json: block as unknown };
  }
}

/**
 * An MCP call result as a ToolResult, with every secret of the configured servers redacted from
 * it (text, resource text, JSON blocks and structured content): a server that echoes its own
 * environment must not hand a credential to the agent, whether the call failed or not.
 * `isError` results keep their blocks and get an errorMessage, which the SDK turns into a failed
 * run the LLM can read.
 */
export function toToolResult(result: CallToolResult, redactor: SecretRedactor): ToolResult {
  const content = result.content.map((b) => redactBlock(toContentBlock(b), redactor));
  if (result.isError) {
    const message = content.flatMap((b) => (b.text ? [b.text] : [])).join('\n').trim();
    return { content, isError: true, errorMessage: message || 'The MCP tool reported an error without a message.' };
  }
  const out: ToolResult = { content };
  if (result.structuredContent !== undefined) out.structured = redactor.redactJson(result.structuredContent);
  return out;
}

/** One block with its textual parts redacted (binary data is passed as it is). */
function redactBlock(block: ContentBlock, redactor: SecretRedactor): ContentBlock {
  if (redactor.empty) return block;
  if (block.text !== undefined) return { ...block, text: redactor.redact(block.text) };
  if (block.resource) return { ...block, resource: { ...block.resource, uri: redactor.redact(block.resource.uri), text: redactor.redact(block.resource.text) } };
  if (block.json !== undefined) return { ...block, json: redactor.redactJson(block.json) };
  return block;
}
