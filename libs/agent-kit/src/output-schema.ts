/** A tool's declared output schema (ToolInfo.output_schema_json) as the object MCP lists. */
import type { ToolInfo } from '@toolhub/contracts';

/**
 * The schema of `info`'s structured result when it declares an object-typed one (MCP requires
 * `type: "object"`), else undefined: a schema the registry let through but MCP cannot carry is
 * left out rather than listed for a client to reject.
 */
export function outputSchemaOf(info: Pick<ToolInfo, 'outputSchemaJson'>): Record<string, unknown> | undefined {
  if (!info.outputSchemaJson) return undefined;
  try {
    const value: unknown = JSON.parse(info.outputSchemaJson);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    return (value as Record<string, unknown>)['type'] === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
