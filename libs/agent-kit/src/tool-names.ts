/**
 * The name a ToolHub tool is exposed under as a model-callable function. Bare tool names are only
 * unique within one provider, so exposed names carry the provider:
 *
 *   `<provider>__<name>`            e.g. `local__file_read`, `github__create_issue`
 *
 * OpenAI and Anthropic accept ^[a-zA-Z0-9_-]{1,64}$; provider names (^[a-z][a-z0-9_-]{0,31}$) and tool
 * names (^[a-z][a-z0-9_]{0,63}$) only use those characters, and a tool name never starts with `_`, so
 * the first `__` splits the plain form back into provider and name. When the plain form would be
 * longer than 64 characters, or the provider itself contains `__` or ends in `_`, the name is
 * shortened and made unique with a hash of the id:
 *
 *   `<provider, ≤ 20 chars>__<name, cut>_<8 hex of sha256(id)>`
 *
 * That form is deterministic (same id → same name on every run) but not parseable; it is reversed
 * through {@link ExposedNameTable}, which remembers every name it handed out.
 */
import { createHash } from 'node:crypto';

import { parseToolId, toolId } from '@toolhub/contracts';

/** Separator between provider and tool name in an exposed name. */
export const EXPOSED_NAME_SEPARATOR = '__';
/** Longest function name every supported LLM API accepts. */
export const MAX_EXPOSED_NAME_LENGTH = 64;
/** What every supported LLM API accepts as a function name. */
export const EXPOSED_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** A tool's identity in ToolHub. */
export interface ToolRef {
  provider: string;
  name: string;
}

/** The exposed function name of a ToolHub tool (see the module comment for the mapping). */
export function exposedToolName(provider: string, name: string): string {
  const plain = `${provider}${EXPOSED_NAME_SEPARATOR}${name}`;
  if (plain.length <= MAX_EXPOSED_NAME_LENGTH && !provider.includes(EXPOSED_NAME_SEPARATOR) && !provider.endsWith('_') && EXPOSED_NAME_PATTERN.test(plain)) {
    return plain;
  }
  const hash = createHash('sha256').update(toolId(provider, name)).digest('hex').slice(0, 8);
  const safeProvider = provider.replace(/[^a-zA-Z0-9-]+/g, '_').replace(/_{2,}/g, '_').replace(/_+$/, '').slice(0, 20) || 'p';
  const room = MAX_EXPOSED_NAME_LENGTH - safeProvider.length - EXPOSED_NAME_SEPARATOR.length - 1 - hash.length;
  const safeName = name.replace(/[^a-zA-Z0-9_-]+/g, '_').slice(0, room).replace(/_+$/, '') || 't';
  return `${safeProvider}${EXPOSED_NAME_SEPARATOR}${safeName}_${hash}`;
}

/**
 * Splits a plain-form exposed name (`local__file_read`) into provider and name; also accepts an id
 * (`local:file_read`). Undefined when `exposed` has neither form. A hashed name parses to a name
 * that does not exist, so resolve through an {@link ExposedNameTable} first.
 */
export function parseExposedToolName(exposed: string): ToolRef | undefined {
  const asId = parseToolId(exposed);
  if (asId) return asId;
  const i = exposed.indexOf(EXPOSED_NAME_SEPARATOR);
  if (i <= 0) return undefined;
  const provider = exposed.slice(0, i);
  const name = exposed.slice(i + EXPOSED_NAME_SEPARATOR.length);
  if (!/^[a-z]/.test(name)) return undefined;
  return { provider, name };
}

/**
 * Remembers every exposed name handed out in a session and the tool behind it, so a call by that
 * name still works after the tool was released from the prompt (the model may call it from history).
 */
export class ExposedNameTable {
  private readonly byName = new Map<string, ToolRef>();

  /** The exposed name of a tool, remembered for {@link resolve}. */
  register(provider: string, name: string): string {
    const exposed = exposedToolName(provider, name);
    this.byName.set(exposed, { provider, name });
    return exposed;
  }

  /** The tool behind an exposed name: from the table, else by parsing the plain form or an id. */
  resolve(exposed: string): ToolRef | undefined {
    return this.byName.get(exposed) ?? parseExposedToolName(exposed);
  }

  /** True when this table handed out `exposed`. */
  has(exposed: string): boolean {
    return this.byName.has(exposed);
  }
}
