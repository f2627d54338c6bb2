/**
 * Cached tool info and listings for the dispatcher, keyed by provider + tool (+ path for lists),
 * with TTLs by importance. `tool.invalidated` and `catalog.changed` events evict at once, on every
 * replica: each replica subscribes to the event subjects directly (no queue group, so all hear it).
 */
import type { Bus, Subscription } from '@toolhub/bus';
import { type Cache, toolInfoKey, toolInfoKeyPrefix, toolListKey, toolListKeyPrefix, type TtlPolicy } from '@toolhub/cache';
import { AdapterListResponse, CatalogChanged, eventWildcard, importanceName, parseToolId, RegisteredTool, ToolInvalidated } from '@toolhub/contracts';

export interface MetadataCacheStats {
  hits: number;
  misses: number;
  evictions: number;
}

const MAX_DECODED = 1000;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a === b || (a.byteLength === b.byteLength && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength)));
}

export class MetadataCache {
  readonly stats: MetadataCacheStats = { hits: 0, misses: 0, evictions: 0 };
  private readonly subscriptions: Subscription[] = [];
  /** The last decoded tool per cache key, with the bytes it was decoded from (oldest dropped first). */
  private readonly decoded = new Map<string, { bytes: Uint8Array; tool: RegisteredTool }>();

  constructor(
    readonly cache: Cache,
    private readonly ttl: TtlPolicy,
    /** Listings change with the catalog; they live as long as normal-importance info. */
    private readonly listTtlMs = ttl.normal,
  ) {}

  /** Evicts on invalidation events from `bus` until {@link close}. */
  async listen(bus: Bus, onError: (err: unknown) => void = () => {}): Promise<void> {
    this.subscriptions.push(
      await bus.subscribe(eventWildcard('tool.invalidated'), async (msg) => {
        try {
          const e = ToolInvalidated.decode(msg.data);
          await this.evictTool(e.provider, e.name);
        } catch (err) {
          onError(err);
        }
      }),
      await bus.subscribe(eventWildcard('catalog.changed'), async (msg) => {
        try {
          const e = CatalogChanged.decode(msg.data);
          await this.cache.deleteByPrefix(toolListKeyPrefix(e.provider));
          for (const id of [...e.changed, ...e.removed]) {
            const parsed = parseToolId(id);
            await this.evictTool(parsed?.provider ?? e.provider, parsed?.name ?? id);
          }
          this.stats.evictions++;
        } catch (err) {
          onError(err);
        }
      }),
    );
  }

  /**
   * The tool with its overlay (fallbacks, enabled), as last resolved. Treat it as read-only: the
   * decoded object is shared by every call that reads the same cached bytes.
   */
  async getInfo(provider: string, name: string): Promise<RegisteredTool | undefined> {
    const key = toolInfoKey(provider, name);
    const bytes = await this.cache.get(key);
    if (!bytes) {
      this.stats.misses++;
      return undefined;
    }
    this.stats.hits++;
    return this.decode(key, bytes);
  }

  /**
   * {@link getInfo} without waiting, when the cache has the tool in this process (`Cache.peek`);
   * `undefined` otherwise (not cached, or only in Redis: ask `getInfo`).
   */
  peekInfo(provider: string, name: string): RegisteredTool | undefined {
    const key = toolInfoKey(provider, name);
    const bytes = this.cache.peek?.(key);
    if (!bytes) return undefined;
    this.stats.hits++;
    return this.decode(key, bytes);
  }

  private decode(key: string, bytes: Uint8Array): RegisteredTool {
    // Decoding a tool (its schema is a protobuf Struct) is the larger part of a hit; the bytes are
    // compared, so a changed entry (another replica wrote it) is decoded afresh.
    const memo = this.decoded.get(key);
    if (memo && sameBytes(memo.bytes, bytes)) return memo.tool;
    const tool = RegisteredTool.decode(bytes);
    if (this.decoded.size >= MAX_DECODED) this.decoded.delete(this.decoded.keys().next().value!);
    this.decoded.set(key, { bytes, tool });
    return tool;
  }

  async setInfo(tool: RegisteredTool): Promise<void> {
    const info = tool.tool;
    if (!info) return;
    await this.cache.set(toolInfoKey(info.provider, info.name), RegisteredTool.encode(tool).finish(), this.ttl[importanceName(info.importance)]);
  }

  async getList(provider: string, path: string, recursive: boolean): Promise<AdapterListResponse | undefined> {
    const bytes = await this.cache.get(toolListKey(provider, path, recursive));
    if (!bytes) {
      this.stats.misses++;
      return undefined;
    }
    this.stats.hits++;
    return AdapterListResponse.decode(bytes);
  }

  async setList(provider: string, path: string, recursive: boolean, list: AdapterListResponse): Promise<void> {
    await this.cache.set(toolListKey(provider, path, recursive), AdapterListResponse.encode(list).finish(), this.listTtlMs);
  }

  async evictTool(provider: string, name: string): Promise<void> {
    const prefix = toolInfoKeyPrefix(provider, name);
    for (const key of this.decoded.keys()) if (key.startsWith(prefix)) this.decoded.delete(key);
    await this.cache.deleteByPrefix(prefix);
    this.stats.evictions++;
  }

  async close(): Promise<void> {
    await Promise.all(this.subscriptions.splice(0).map((s) => s.close()));
  }
}
