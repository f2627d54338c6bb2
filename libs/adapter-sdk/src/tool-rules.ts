/**
 * Checks an adapter makes on a tool from an outside source (an MCP server, an OpenAPI document)
 * before building its ToolInfo: the catalog rules of `@toolhub/contracts` (`catalog-limits.ts`)
 * that `serveAdapter` enforces again when it screens the catalog, applied early so that a
 * 2,000-level schema never reaches the adapter's own recursive steps (renaming, hashing).
 */
import { jsonDepth, MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH, utf8Bytes } from '@toolhub/contracts';

/** Descriptions are cut here (the registry stores at most 16,384 characters). */
export const MAX_SOURCE_DESCRIPTION_CHARS = 16_384;

/** Why a source's input schema must be quarantined (`rule` as in QuarantineEntry), or undefined. */
export function schemaRuleViolation(schema: unknown): { rule: string; reason: string } | undefined {
  if (schema !== undefined && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) return { rule: 'schema', reason: 'the input schema is not a JSON object' };
  if (jsonDepth(schema, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH) return { rule: 'schema_depth', reason: `the input schema nests more than ${MAX_SCHEMA_DEPTH} levels (limit MAX_SCHEMA_DEPTH)` };
  let size: number;
  try {
    size = utf8Bytes(JSON.stringify(schema ?? {}));
  } catch (err) {
    return { rule: 'schema', reason: `the input schema cannot be written as JSON (${(err as Error).message})` };
  }
  if (size > MAX_SCHEMA_BYTES) return { rule: 'schema_size', reason: `the input schema is ${size} bytes of JSON, more than the ${MAX_SCHEMA_BYTES} limit (MAX_SCHEMA_BYTES)` };
  return undefined;
}

/** A description cut to {@link MAX_SOURCE_DESCRIPTION_CHARS} with a note saying so: a long description alone never costs the tool. */
export function fitDescription(text: string, max = MAX_SOURCE_DESCRIPTION_CHARS): string {
  if (text.length <= max) return text;
  const note = ` [description cut from ${text.length} characters]`;
  return `${text.slice(0, Math.max(0, max - note.length))}${note}`;
}
