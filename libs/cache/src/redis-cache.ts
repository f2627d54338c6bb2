import { Redis, ReplyError } from 'ioredis';
import type { Cache, CacheHealth, CacheStateChange } from './cache';
import { PendingInvalidations } from './pending-invalidations';
import { reconnectDelay, redactedUrl, redisCacheDefaults, type RedisCacheOptions, type ResolvedRedisCacheOptions } from './redis-options';
import { assertTtlMs } from './ttl';

/** How long a closing socket may take to close before it is destroyed. */
const DISCONNECT_TIMEOUT_MS = 100;

type State = { kind: 'up'; since: Date } | { kind: 'down'; since: Date; reason: string } | { kind: 'closed' };

/**
 * A {@link Cache} on Redis (ioredis), shared by every dispatcher replica.
 *
 * It never fails a caller because Redis is down or slow: while Redis is unreachable (or after a
 * command timed out) the cache is *down*: `get` misses, `set` is dropped, deletes are remembered
 * and replayed later, and no command is sent, so a dead Redis costs nothing per request. It reports
 * the outage once through `onStateChange` and in `health()`, reconnects forever with capped
 * backoff, and is *up* again once the connection is ready and the remembered deletes are applied.
 */
export class RedisCache implements Cache {
  readonly #client: Redis;
  readonly #options: ResolvedRedisCacheOptions;
  readonly #target: string;
  readonly #pending: PendingInvalidations;
  #state: State = { kind: 'up', since: new Date() };
  #probeTimer: NodeJS.Timeout | undefined;
  #recovering: Promise<void> | undefined;
  #closing: Promise<void> | undefined;

  private constructor(client: Redis, options: ResolvedRedisCacheOptions) {
    this.#client = client;
    this.#options = options;
    this.#target = redactedUrl(options.url);
    this.#pending = new PendingInvalidations(options.maxPendingInvalidations);
  }

  /**
   * Connects to Redis and resolves once the first attempt succeeded or failed (about
   * `connectTimeoutMs` at most). It does not reject when Redis is unreachable: the cache starts
   * down, says so through `onStateChange`, and keeps reconnecting in the background.
   * @throws CacheError `invalid_argument` for bad options (URL, non-positive numbers).
   */
  static async connect(options?: RedisCacheOptions): Promise<RedisCache> {
    const resolved = redisCacheDefaults(options);
    const client = new Redis(resolved.url, {
      lazyConnect: true,
      // Fail fast instead of queueing while disconnected: a cache miss is cheaper than a wait.
      enableOfflineQueue: false,
      // Commands in flight when the connection drops fail at once instead of being resent.
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      commandTimeout: resolved.commandTimeoutMs,
      connectTimeout: resolved.connectTimeoutMs,
      connectionName: resolved.connectionName,
      disconnectTimeout: DISCONNECT_TIMEOUT_MS,
      retryStrategy: (attempt) => reconnectDelay(attempt, resolved.reconnectMinDelayMs, resolved.reconnectMaxDelayMs),
    });
    const cache = new RedisCache(client, resolved);
    cache.#listen();
    try {
      await client.connect();
    } catch (err) {
      cache.#markDown(err);
    }
    return cache;
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    if (this.#state.kind !== 'up') return undefined;
    try {
      const value = await this.#client.getBuffer(this.#options.keyPrefix + key);
      return value === null ? undefined : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    } catch (err) {
      this.#commandFailed(err);
      return undefined;
    }
  }

  async set(key: string, value: Uint8Array, ttlMs: number): Promise<void> {
    assertTtlMs(ttlMs);
    if (this.#state.kind !== 'up') return;
    try {
      const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      await this.#client.set(this.#options.keyPrefix + key, bytes, 'PX', Math.ceil(ttlMs));
    } catch (err) {
      this.#commandFailed(err);
    }
  }

  async delete(key: string): Promise<void> {
    if (this.#state.kind === 'closed') return;
    if (this.#state.kind === 'down') {
      this.#pending.addKey(key);
      return;
    }
    try {
      await this.#client.unlink(this.#options.keyPrefix + key);
    } catch (err) {
      this.#pending.addKey(key);
      this.#commandFailed(err);
    }
  }

  async deleteByPrefix(prefix: string): Promise<number> {
    if (this.#state.kind === 'closed') return 0;
    if (this.#state.kind === 'down') {
      this.#pending.addPrefix(prefix);
      return 0;
    }
    try {
      return await this.#unlinkByPrefix(prefix);
    } catch (err) {
      this.#pending.addPrefix(prefix);
      this.#commandFailed(err);
      return 0;
    }
  }

  health(): CacheHealth {
    const state = this.#state;
    switch (state.kind) {
      case 'up':
        return { healthy: true, detail: `redis ready at ${this.#target}` };
      case 'down':
        return { healthy: false, detail: `redis at ${this.#target} down since ${state.since.toISOString()}: ${state.reason}` };
      case 'closed':
        return { healthy: false, detail: `redis cache closed (${this.#target})` };
    }
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#state = { kind: 'closed' };
    this.#stopProbe();
    const client = this.#client;
    if (client.status === 'end') return;
    const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
    if (client.status === 'ready') {
      try {
        await client.quit();
        if (await settlesWithin(ended, DISCONNECT_TIMEOUT_MS)) return;
      } catch {
        // QUIT is a courtesy; disconnect() below closes the socket either way.
      }
    }
    client.disconnect();
    // ioredis arms a `disconnectTimeout` timer even when the socket is already gone (while it waits
    // to reconnect, redis/ioredis#1247), and nothing clears it but the elapsed time. Wait it out, so
    // close() leaves no timer behind to hold up a graceful shutdown or a test run.
    await settlesWithin(ended, DISCONNECT_TIMEOUT_MS + 10);
  }

  // SCAN + UNLINK in batches: never KEYS, which blocks Redis for the whole key space.
  async #unlinkByPrefix(prefix: string): Promise<number> {
    const pattern = `${escapeGlob(this.#options.keyPrefix + prefix)}*`;
    let cursor = '0';
    let removed = 0;
    do {
      const [next, keys] = await this.#client.scanBuffer(cursor, 'MATCH', pattern, 'COUNT', this.#options.scanCount);
      cursor = next.toString();
      if (keys.length > 0) removed += await this.#client.unlink(...keys);
    } while (cursor !== '0');
    return removed;
  }

  #listen(): void {
    const client = this.#client;
    client.on('ready', () => this.#recover());
    // Without an 'error' listener ioredis prints every failed reconnection to stderr.
    client.on('error', (err: unknown) => this.#markDown(err));
    client.on('close', () => this.#markDown(new Error('connection closed')));
    client.on('end', () => this.#markDown(new Error('connection ended')));
  }

  #commandFailed(err: unknown): void {
    // Redis answered with an error about this one command (e.g. WRONGTYPE): the server is fine.
    if (err instanceof ReplyError) return;
    this.#markDown(err);
  }

  /** Turns the cache down (reporting once), or refreshes the reason while already down. */
  #markDown(err: unknown): void {
    const state = this.#state;
    if (state.kind === 'closed') return;
    const reason = describe(err);
    if (state.kind === 'down') {
      // Keep `since`; show the latest reason (e.g. ECONNREFUSED after "connection closed").
      this.#state = { ...state, reason };
      return;
    }
    const since = new Date();
    this.#state = { kind: 'down', since, reason };
    this.#startProbe();
    this.#notify({ ...this.health(), since, reason });
  }

  /** Replays remembered deletes, then turns the cache up. One recovery at a time. */
  #recover(): void {
    if (this.#recovering || this.#state.kind !== 'down' || this.#client.status !== 'ready') return;
    this.#recovering = this.#replay().finally(() => {
      this.#recovering = undefined;
    });
  }

  async #replay(): Promise<void> {
    try {
      await this.#client.ping();
      // Deletes may arrive while we replay; loop until none is left. There is no await between the
      // last `isEmpty` check and the state change, so none can slip through.
      while (!this.#pending.isEmpty) {
        const batch = this.#pending.take();
        try {
          if (batch.everything) await this.#unlinkByPrefix('');
          for (const key of batch.keys) await this.#client.unlink(this.#options.keyPrefix + key);
          for (const prefix of batch.prefixes) await this.#unlinkByPrefix(prefix);
        } catch (err) {
          this.#pending.restore(batch);
          throw err;
        }
      }
    } catch (err) {
      this.#markDown(err);
      return;
    }
    if (this.#state.kind !== 'down') return;
    const since = new Date();
    this.#state = { kind: 'up', since };
    this.#stopProbe();
    this.#notify({ ...this.health(), since });
  }

  // While down but connected (a timed-out Redis keeps its socket), nothing else would tell us it
  // is back: probe it. A lost connection comes back through ioredis's reconnect and 'ready'.
  #startProbe(): void {
    this.#stopProbe();
    this.#probeTimer = setInterval(() => this.#recover(), this.#options.probeIntervalMs);
    this.#probeTimer.unref();
  }

  #stopProbe(): void {
    if (this.#probeTimer) clearInterval(this.#probeTimer);
    this.#probeTimer = undefined;
  }

  #notify(change: CacheStateChange): void {
    try {
      this.#options.onStateChange?.(change);
    } catch (err) {
      process.emitWarning(`RedisCache onStateChange callback threw: ${describe(err)}`, 'ToolHubCacheWarning');
    }
  }
}

/** Whether `promise` settles within `ms`; the timer never outlives the call. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const message = err.message || err.name;
    return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
  }
  return String(err);
}

// SCAN MATCH takes a glob; a literal prefix must escape its glob characters.
function escapeGlob(literal: string): string {
  return literal.replace(/[\\*?[\]]/g, '\\$&');
}
