/** Small constructors for tool results, so adapters read clearly. */
import type { ToolResult } from './types';

/** A plain text result. */
export function textResult(text: string, structured?: unknown): ToolResult {
  return { content: [{ text }], structured };
}

/** A JSON result: pretty text for the LLM plus the structured value. */
export function jsonResult(value: unknown): ToolResult {
  return { content: [{ text: JSON.stringify(value, null, 2) }], structured: value };
}

/** The tool ran and failed: the message goes to the LLM, which should be able to fix the call from it. */
export function toolError(message: string): ToolResult {
  return { content: [{ text: message }], isError: true, errorMessage: message };
}
