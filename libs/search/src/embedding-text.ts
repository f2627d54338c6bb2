/**
 * The text a tool's vector is computed from. Its SHA-256 (with the model) is the vector's storage
 * key, so a change here makes every tool whose text changed be embedded once again — and only those.
 */
import type { ToolInfo } from '@toolhub/contracts';

import { splitIdentifier } from './analyzer';
import { forEachParameter } from './schema-parameters';

/** Characters of a tool's text sent to the model (small models read ~256 word pieces anyway). */
const MAX_TEXT = 2000;
/** Most allowed values listed per parameter. */
const MAX_ENUM_VALUES = 10;

/** An identifier as lowercase words: `getUserByID` → `get user by id`, `num_legs` → `num legs`. */
function asWords(identifier: string): string {
  return splitIdentifier(identifier).join(' ').toLowerCase();
}

/**
 * Each parameter as `name as words: description (one of a, b, c)`, nested objects and array items
 * included. Task descriptions name parameter values ("in Celsius", "with a base of 10 units"),
 * so the values a parameter allows are part of what the tool is about.
 */
function parameterSentences(schema: unknown): string[] {
  const parts: string[] = [];
  forEachParameter(schema, (name, p) => {
    let text = asWords(name);
    if (typeof p['description'] === 'string' && p['description'].trim() !== '') text += `: ${p['description'].trim()}`;
    const values = Array.isArray(p['enum']) ? (p['enum'] as unknown[]).filter((v) => typeof v === 'string' || typeof v === 'number').slice(0, MAX_ENUM_VALUES) : [];
    if (values.length > 0) text += ` (one of ${values.join(', ')})`;
    parts.push(text);
  });
  return parts;
}

/**
 * The text a tool is embedded from: its name as words, its category path as words, its
 * description, then its parameters (name as words, description, allowed values) — what an agent's
 * task description is likely to echo. The provider is left out: every tool of a provider shares
 * it, so it cannot tell them apart, and under the model's mean pooling it pulls them together
 * (on MetaTool, one provider, leaving it out lifted dense R@5 0.728 → 0.762); queries naming a
 * provider still find it through the lexical `category` field and the provider filter.
 */
export function embeddingText(tool: ToolInfo): string {
  const where = tool.path ? ` (${tool.path.split('/').map(asWords).join(' / ')})` : '';
  const params = parameterSentences(tool.inputSchema);
  const text = `${asWords(tool.name)}${where}: ${tool.description}${params.length > 0 ? `\nParameters: ${params.join('; ')}` : ''}`;
  return text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text;
}
