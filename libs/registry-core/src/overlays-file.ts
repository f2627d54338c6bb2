/**
 * Operator overlays kept in git: a YAML or JSON file of importance, enabled and fallbacks per tool,
 * plus optionally the whole preload list. Everything is checked before anything is applied, so a
 * malformed file changes nothing.
 *
 * ```yaml
 * preload: [local:file_read, local:math_calculate]
 * tools:
 *   local:file_read: { importance: core, fallbacks: [mcp:filesystem_read_file] }
 *   local:file_write: { enabled: false }
 * ```
 */
import { type Importance, importanceFromName, parseToolId, ToolHubError } from '@toolhub/contracts';
import type { RegistryStore } from '@toolhub/store';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

const toolIdSchema = z.string().regex(/^[a-z][a-z0-9_-]{0,31}:[a-z][a-z0-9_]{0,63}$/, 'a tool id "<provider>:<name>", e.g. "local:file_read"');

export const overlaysFileSchema = z
  .object({
    preload: z.array(toolIdSchema).optional(),
    tools: z
      .record(
        toolIdSchema,
        z.object({ importance: z.enum(['core', 'normal', 'low']).optional(), enabled: z.boolean().optional(), fallbacks: z.array(toolIdSchema).optional() }).strict(),
      )
      .optional(),
  })
  .strict();

export type OverlaysFile = z.infer<typeof overlaysFileSchema>;

/** Parses and checks the file's text. @throws ToolHubError invalid_argument with every problem. */
export function parseOverlaysFile(content: string, format: string): OverlaysFile {
  let raw: unknown;
  const kind = format || (content.trimStart().startsWith('{') ? 'json' : 'yaml');
  try {
    raw = kind === 'json' ? JSON.parse(content) : parseYaml(content);
  } catch (err) {
    throw ToolHubError.invalidArgument(`The overlays file is not valid ${kind.toUpperCase()}: ${(err as Error).message}`, [{ field: 'content', message: 'unparsable', expected: kind }]);
  }
  const parsed = overlaysFileSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const violations = parsed.error.issues.map((i) => ({ field: `/${i.path.join('/')}`, message: i.message, expected: '', example: '' }));
    throw ToolHubError.invalidArgument(
      `The overlays file has ${violations.length} problem(s): ${violations.map((v) => `${v.field}: ${v.message}`).join('; ')}. Expected keys: preload (list of tool ids) and tools (map of tool id to {importance, enabled, fallbacks}).`,
      violations,
    );
  }
  return parsed.data;
}

export interface ImportResult {
  toolIds: string[];
  preloadChanged: boolean;
  messages: string[];
}

/**
 * Checks that every tool named exists, then applies the overlays (unless `dryRun`).
 * @throws ToolHubError not_found listing every unknown tool; nothing is changed then.
 */
export async function applyOverlaysFile(store: RegistryStore, file: OverlaysFile, changedBy: string, dryRun: boolean): Promise<ImportResult> {
  const entries = Object.entries(file.tools ?? {});
  const missing: string[] = [];
  for (const [id] of entries) {
    const ref = parseToolId(id)!;
    if (!(await store.getTool(ref.provider, ref.name))) missing.push(id);
  }
  if (missing.length) {
    throw ToolHubError.notFound(`The overlays file names tools the registry does not know: ${missing.join(', ')}. Nothing was changed; fix or remove those entries.`, missing);
  }
  const messages: string[] = [];
  if (!dryRun) {
    for (const [id, o] of entries) {
      const ref = parseToolId(id)!;
      await store.setOverlay(ref.provider, ref.name, {
        importance: o.importance ? (importanceFromName(o.importance) as Importance) : undefined,
        enabled: o.enabled,
        fallbacks: o.fallbacks,
        changedBy,
      });
      messages.push(`${id}: ${Object.keys(o).join(', ') || 'no changes'}`);
    }
  }
  let preloadChanged = false;
  if (file.preload) {
    const current = await store.getPreloadList();
    preloadChanged = current.toolIds.join(',') !== file.preload.join(',');
    if (preloadChanged && !dryRun) {
      await store.setPreloadList({ toolIds: file.preload, changedBy, comment: 'imported from overlays file' });
      messages.push(`preload list: ${file.preload.length} tools`);
    }
  }
  return { toolIds: entries.map(([id]) => id), preloadChanged, messages: dryRun ? [`dry run: ${entries.length} tool(s) and ${file.preload ? 'the preload list' : 'no preload list'} would change`] : messages };
}
