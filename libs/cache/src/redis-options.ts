import type { CacheStateChange } from './cache';
import { CacheError } from './errors';

/** Options of {@link RedisCache.connect}. */
export interface RedisCacheOptions {
  /**
   * `redis://[[user]:password@]host[:port][/db]`, or `rediss://` for TLS. Credentials are never
   * shown in `health()` or state changes.
   * @default 'redis://127.0.0.1:6379'
   */
  url?: string;
  /**
   * Prepended to every key, so several deployments can share one Redis. `deleteByPrefix` only ever
   * sees keys under it.
   * @default 'toolhub:'
   */
  keyPrefix?: string;
  /**
   * Longest wait for one command. Small, so a hung Redis costs a request little; after a timeout the
   * cache turns unhealthy and stops sending commands until a probe succeeds.
   * @default 100
   */
  commandTimeoutMs?: number;
  /**
   * Longest wait for a TCP connection (each attempt). `connect()` waits at most about this long.
   * @default 2000
   */
  connectTimeoutMs?: number;
  /** First reconnection delay; doubles per failed attempt. @default 100 */
  reconnectMinDelayMs?: number;
  /**
   * Cap of the reconnection delay. The cache reconnects forever (a cache that gave up would never
   * recover); each delay is shortened by a random 0–20% so replicas don't reconnect in lockstep.
   * @default 5000
   */
  reconnectMaxDelayMs?: number;
  /**
   * How often to check a connected-but-failing Redis (one that timed out) with PING while unhealthy.
   * A lost connection is detected by the reconnection itself.
   * @default 1000
   */
  probeIntervalMs?: number;
  /**
   * Deletes that fail while Redis is unreachable are remembered and replayed before the cache is
   * used again, so a stale entry can't come back after an outage. Beyond this many distinct
   * keys/prefixes, the whole `keyPrefix` is flushed on recovery instead.
   * @default 1000
   */
  maxPendingInvalidations?: number;
  /** Keys fetched per SCAN step of `deleteByPrefix`. @default 500 */
  scanCount?: number;
  /** Name shown in Redis `CLIENT LIST`. @default 'toolhub-cache' */
  connectionName?: string;
  /**
   * Called once each time the cache turns unhealthy (with the reason) and once when it is healthy
   * again; not for the first successful connection. Log it: that is the "cache down" line of the
   * dispatcher's log. Exceptions thrown by the callback are reported as process warnings.
   * @default undefined
   */
  onStateChange?: (change: CacheStateChange) => void;
}

/** {@link RedisCacheOptions} with every default filled in. */
export type ResolvedRedisCacheOptions = Required<Omit<RedisCacheOptions, 'onStateChange'>> &
  Pick<RedisCacheOptions, 'onStateChange'>;

const POSITIVE_INTEGER_FIELDS = [
  'commandTimeoutMs',
  'connectTimeoutMs',
  'reconnectMinDelayMs',
  'reconnectMaxDelayMs',
  'probeIntervalMs',
  'maxPendingInvalidations',
  'scanCount',
] as const;

/**
 * Fills in the defaults of {@link RedisCacheOptions} in one place.
 * @throws CacheError `invalid_argument` naming the field for a bad URL, number or combination.
 */
export function redisCacheDefaults(options: RedisCacheOptions = {}): ResolvedRedisCacheOptions {
  const resolved: ResolvedRedisCacheOptions = {
    url: options.url ?? 'redis://127.0.0.1:6379',
    keyPrefix: options.keyPrefix ?? 'toolhub:',
    commandTimeoutMs: options.commandTimeoutMs ?? 100,
    connectTimeoutMs: options.connectTimeoutMs ?? 2000,
    reconnectMinDelayMs: options.reconnectMinDelayMs ?? 100,
    reconnectMaxDelayMs: options.reconnectMaxDelayMs ?? 5000,
    probeIntervalMs: options.probeIntervalMs ?? 1000,
    maxPendingInvalidations: options.maxPendingInvalidations ?? 1000,
    scanCount: options.scanCount ?? 500,
    connectionName: options.connectionName ?? 'toolhub-cache',
    onStateChange: options.onStateChange,
  };
  for (const field of POSITIVE_INTEGER_FIELDS) {
    const value = resolved[field];
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new CacheError('invalid_argument', `RedisCache option ${field} must be a positive integer, got ${String(value)}`);
    }
  }
  if (resolved.reconnectMinDelayMs > resolved.reconnectMaxDelayMs) {
    throw new CacheError(
      'invalid_argument',
      `RedisCache option reconnectMinDelayMs (${resolved.reconnectMinDelayMs}) must not exceed reconnectMaxDelayMs (${resolved.reconnectMaxDelayMs})`,
    );
  }
  redactedUrl(resolved.url); // validates
  return resolved;
}

/** The URL without its password, for health and logs. @throws CacheError for a URL Redis can't use. */
export function redactedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (err) {
    throw new CacheError('invalid_argument', `RedisCache option url is not a URL: ${JSON.stringify(url)}`, { cause: err });
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new CacheError('invalid_argument', `RedisCache option url must start with redis:// or rediss://, got ${parsed.protocol}//`);
  }
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/** Capped exponential backoff with jitter; never gives up, so the cache comes back with Redis. */
export function reconnectDelay(attempt: number, minMs: number, maxMs: number): number {
  const base = Math.min(maxMs, minMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
  return Math.round(base * (0.8 + Math.random() * 0.2));
}
