/**
 * The catalog mirror: tool definitions (one document per tool, `_id` = tool id) and operator
 * overlays (a separate collection, so they outlive a sync that drops a tool for a while).
 * A definition is stored as canonical JSON text: JSON Schemas contain keys such as `$ref` and
 * `a.b` that MongoDB/FerretDB and NeDB refuse as field names.
 */
import {
  Importance,
  type ToolInfo,
  ToolHubError,
  assertProviderName,
  canonicalJson,
  closestMatches,
  normalizePath,
  toolId,
} from '@toolhub/contracts';

import { type BaseDoc, type DocCollection, type Filter, compact } from './backend';
import { StoreError } from './errors';
import type { OverlayPatch, StoredTool, SyncResult, ToolFilter, ToolOverlay, ToolSource } from './store';
import { assertText, assertToolIdList, assertToolKey, invalid, isImportance, normalizeToolInfo } from './validation';

/** Most tools in one sync. */
export const MAX_SYNC_TOOLS = 20_000;
/** Longest fallback chain. */
export const MAX_FALLBACKS = 16;
const CAS_ATTEMPTS = 20;

/** A stored tool definition. */
export interface ToolDoc extends BaseDoc {
  provider: string;
  name: string;
  path: string;
  source: ToolSource;
  version: string;
  /** Canonical JSON of the normalised ToolInfo. */
  info: string;
  createdUnixMs: number;
  updatedUnixMs: number;
}

/** A stored overlay; `rev` makes updates compare-and-set. */
export interface OverlayDoc extends BaseDoc {
  provider: string;
  name: string;
  importance?: number;
  enabled?: boolean;
  fallbacks?: string[];
  updatedBy?: string;
  updatedUnixMs: number;
  rev: number;
}

/** Tool and overlay operations of the store. */
export class ToolCatalog {
  constructor(
    private readonly tools: DocCollection<ToolDoc>,
    private readonly overlays: DocCollection<OverlayDoc>,
    private readonly clock: () => number,
  ) {}

  async sync(provider: string, tools: readonly ToolInfo[]): Promise<SyncResult> {
    assertProviderName(provider, 'provider');
    if (!Array.isArray(tools)) invalid('tools', 'is not a list', 'a list of ToolInfo', '[]');
    if (tools.length > MAX_SYNC_TOOLS) invalid('tools', `has ${tools.length} entries`, `at most ${MAX_SYNC_TOOLS}`, 'a smaller catalog');
    const incoming = tools.map((t, i) => normalizeToolInfo(t, `tools[${i}]`, provider));
    const firstIndex = new Map<string, number>();
    incoming.forEach((t, i) => {
      const first = firstIndex.get(t.name);
      if (first !== undefined) invalid(`tools[${i}].name`, `repeats ${JSON.stringify(t.name)} (already tools[${first}])`, 'each name once per provider', JSON.stringify(`${t.name}_2`));
      firstIndex.set(t.name, i);
    });

    const now = this.clock();
    const existing = new Map((await this.tools.find({ provider })).map((d) => [d.name, d]));
    const toAdd: ToolDoc[] = [];
    const toChange: ToolDoc[] = [];
    const unchanged: string[] = [];
    const conflicts: string[] = [];
    for (const info of incoming) {
      const json = canonicalJson(info);
      const current = existing.get(info.name);
      if (!current) toAdd.push(newToolDoc(info, json, 'adapter', now));
      else if (current.source === 'api') conflicts.push(info.name);
      else if (current.info === json) unchanged.push(info.name);
      else toChange.push({ ...current, path: info.path, version: info.version, info: json, updatedUnixMs: now });
    }

    const added: string[] = [];
    if (toAdd.length > 0) {
      await this.tools.insertNew(toAdd);
      // A registerTool or another sync may have taken a name between our read and our insert.
      const stored = new Map((await this.tools.find({ _id: { $in: toAdd.map((d) => d._id) } })).map((d) => [d._id, d]));
      for (const doc of toAdd) {
        const actual = stored.get(doc._id);
        if (actual?.source === 'api') conflicts.push(doc.name);
        else if (actual && actual.info !== doc.info) toChange.push({ ...actual, path: doc.path, version: doc.version, info: doc.info, updatedUnixMs: doc.updatedUnixMs });
        else added.push(doc.name);
      }
    }
    const changed: string[] = [];
    for (const doc of toChange) {
      if (await this.tools.replace({ _id: doc._id, source: 'adapter' }, doc)) changed.push(doc.name);
      else if (await this.tools.insert({ ...doc, createdUnixMs: now })) added.push(doc.name);
      else conflicts.push(doc.name);
    }
    const removedDocs = [...existing.values()].filter((d) => d.source === 'adapter' && !firstIndex.has(d.name));
    if (removedDocs.length > 0) await this.tools.delete({ _id: { $in: removedDocs.map((d) => d._id) }, source: 'adapter' });
    return {
      added: added.sort(),
      changed: changed.sort(),
      removed: removedDocs.map((d) => d.name).sort(),
      unchanged: unchanged.sort(),
      conflicts: conflicts.sort(),
    };
  }

  async get(provider: string, name: string): Promise<StoredTool | undefined> {
    assertToolKey(provider, name);
    const id = toolId(provider, name);
    const [doc, overlay] = await Promise.all([this.tools.get(id), this.overlays.get(id)]);
    return doc && toStoredTool(doc, overlay);
  }

  async list(filter: ToolFilter = {}): Promise<StoredTool[]> {
    if (filter === null || typeof filter !== 'object') invalid('filter', 'is not an object', 'a ToolFilter', '{"provider": "local"}');
    const query: Filter = {};
    if (filter.provider !== undefined) {
      assertProviderName(filter.provider, 'filter.provider');
      query['provider'] = filter.provider;
    }
    if (filter.source !== undefined) {
      if (filter.source !== 'adapter' && filter.source !== 'api') invalid('filter.source', `is ${JSON.stringify(filter.source)}`, '"adapter" or "api"', '"api"');
      query['source'] = filter.source;
    }
    if (filter.pathPrefix !== undefined) {
      const prefix = normalizePath(filter.pathPrefix, 'filter.pathPrefix');
      if (prefix !== '') query['path'] = { $regex: new RegExp(`^${escapeRegExp(prefix)}(/|$)`) };
    }
    if (filter.enabled !== undefined && typeof filter.enabled !== 'boolean') invalid('filter.enabled', `is ${JSON.stringify(filter.enabled)}`, 'true or false', 'true');
    const [docs, overlays] = await Promise.all([
      this.tools.find(query, { sort: { _id: 1 } }),
      this.overlays.find(filter.provider !== undefined ? { provider: filter.provider } : {}),
    ]);
    const byId = new Map(overlays.map((o) => [o._id, o]));
    const tools = docs.map((d) => toStoredTool(d, byId.get(d._id)));
    return filter.enabled === undefined ? tools : tools.filter((t) => t.enabled === filter.enabled);
  }

  async register(tool: ToolInfo): Promise<StoredTool> {
    const info = normalizeToolInfo(tool, 'tool');
    const doc = newToolDoc(info, canonicalJson(info), 'api', this.clock());
    if (!(await this.tools.insert(doc))) {
      const existing = await this.tools.get(doc._id);
      const origin = existing?.source === 'adapter' ? `from provider ${JSON.stringify(info.provider)}'s catalog` : 'registered through the admin API';
      throw new ToolHubError('already_exists', `Tool ${doc._id} already exists (${origin}). Pick another name, or change the existing tool with UpdateTool.`, {
        suggestions: [doc._id],
      });
    }
    return toStoredTool(doc, await this.overlays.get(doc._id));
  }

  async update(tool: ToolInfo): Promise<StoredTool> {
    const info = normalizeToolInfo(tool, 'tool');
    const id = info.id;
    const existing = await this.tools.get(id);
    if (!existing) throw await this.notFound(info.provider, info.name);
    if (existing.source === 'adapter') {
      throw new ToolHubError(
        'failed_precondition',
        `Tool ${id} comes from provider ${JSON.stringify(info.provider)}'s catalog; its next sync would overwrite a changed definition. ` +
          'Change its importance, enabled state or fallbacks with an overlay instead, or change the tool in its provider.',
      );
    }
    const doc: ToolDoc = { ...existing, path: info.path, version: info.version, info: canonicalJson(info), updatedUnixMs: this.clock() };
    if (!(await this.tools.replace({ _id: id, source: 'api' }, doc))) throw await this.notFound(info.provider, info.name);
    return toStoredTool(doc, await this.overlays.get(id));
  }

  async delete(provider: string, name: string): Promise<void> {
    assertToolKey(provider, name);
    const id = toolId(provider, name);
    if ((await this.tools.delete({ _id: id })) === 0) throw await this.notFound(provider, name);
    await this.overlays.delete({ _id: id });
  }

  async setOverlay(provider: string, name: string, patch: OverlayPatch): Promise<StoredTool> {
    assertToolKey(provider, name);
    const id = toolId(provider, name);
    checkOverlayPatch(patch, id);
    const doc = await this.tools.get(id);
    if (!doc) throw await this.notFound(provider, name);
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const current = await this.overlays.get(id);
      const next: OverlayDoc = compact({
        _id: id,
        provider,
        name,
        importance: pick(patch.importance, current?.importance),
        enabled: pick(patch.enabled, current?.enabled),
        // An empty chain is no chain: clear it rather than store [].
        fallbacks: pick(patch.fallbacks === undefined ? undefined : patch.fallbacks?.length ? [...patch.fallbacks] : null, current?.fallbacks),
        updatedBy: patch.changedBy ?? current?.updatedBy,
        updatedUnixMs: this.clock(),
        rev: (current?.rev ?? 0) + 1,
      });
      const empty = next.importance === undefined && next.enabled === undefined && next.fallbacks === undefined;
      let done: boolean;
      if (!current) done = empty || (await this.overlays.insert(next));
      else if (empty) done = (await this.overlays.delete({ _id: id, rev: current.rev })) === 1;
      else done = await this.overlays.replace({ _id: id, rev: current.rev }, next);
      if (done) return toStoredTool(doc, empty ? undefined : next);
    }
    throw new StoreError('contention', `The overlay of ${id} is being changed by others too often; try again.`);
  }

  /** not_found for a tool, with the provider's closest names as suggestions. */
  private async notFound(provider: string, name: string): Promise<ToolHubError> {
    const id = toolId(provider, name);
    const names = (await this.tools.find({ provider }, { include: ['name'] })).map((d) => d.name);
    const suggestions = closestMatches(name, names).map((n) => toolId(provider, n));
    const hint =
      suggestions.length > 0 ? ` Did you mean ${suggestions.join(', ')}?` : names.length === 0 ? ` Provider ${JSON.stringify(provider)} has no tools.` : '';
    return ToolHubError.notFound(`Tool ${id} does not exist.${hint}`, suggestions);
  }
}

function newToolDoc(info: ToolInfo, json: string, source: ToolSource, now: number): ToolDoc {
  return { _id: info.id, provider: info.provider, name: info.name, path: info.path, source, version: info.version, info: json, createdUnixMs: now, updatedUnixMs: now };
}

/** The ToolInfo of a stored document with its overlay applied. */
export function toStoredTool(doc: ToolDoc, overlay: OverlayDoc | undefined): StoredTool {
  const info = JSON.parse(doc.info) as ToolInfo;
  const ov: ToolOverlay = overlay
    ? compact({
        importance: overlay.importance as Importance | undefined,
        enabled: overlay.enabled,
        fallbacks: overlay.fallbacks,
        updatedBy: overlay.updatedBy,
        updatedUnixMs: overlay.updatedUnixMs,
      })
    : {};
  return {
    ...info,
    examples: info.examples ?? [],
    tags: info.tags ?? [],
    importance: ov.importance ?? info.importance,
    declaredImportance: info.importance,
    enabled: ov.enabled ?? true,
    fallbacks: ov.fallbacks ?? [],
    overlay: ov,
    source: doc.source,
    createdUnixMs: doc.createdUnixMs,
    updatedUnixMs: doc.updatedUnixMs,
  };
}

function checkOverlayPatch(patch: OverlayPatch, id: string): void {
  if (patch === null || typeof patch !== 'object') invalid('patch', 'is not an object', 'an OverlayPatch', '{"enabled": false}');
  const { importance, enabled, fallbacks, changedBy } = patch;
  if (importance !== undefined && importance !== null && (!isImportance(importance) || importance === Importance.IMPORTANCE_UNSPECIFIED)) {
    invalid('patch.importance', `is ${JSON.stringify(importance)}`, 'IMPORTANCE_CORE (1), IMPORTANCE_NORMAL (2) or IMPORTANCE_LOW (3); null clears the override', String(Importance.IMPORTANCE_CORE));
  }
  if (enabled !== undefined && enabled !== null && typeof enabled !== 'boolean') invalid('patch.enabled', `is ${JSON.stringify(enabled)}`, 'true, false or null', 'false');
  if (fallbacks !== undefined && fallbacks !== null) {
    const ids = assertToolIdList(fallbacks, 'patch.fallbacks', MAX_FALLBACKS);
    const self = ids.indexOf(id);
    if (self >= 0) invalid(`patch.fallbacks[${self}]`, `is the tool itself (${id})`, 'a different tool, ideally of another provider', '"cloud:file_read"');
  }
  if (changedBy !== undefined) assertText(changedBy, 'patch.changedBy', 200);
}

/** Patch semantics: undefined keeps, null clears. */
function pick<T>(patched: T | null | undefined, current: T | undefined): T | undefined {
  if (patched === undefined) return current;
  return patched === null ? undefined : patched;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
