/** Options of {@link ToolHubAgentClient.connect}, with every default filled in one place. */
import { type ChannelCredentials, type ChannelOptions, credentials as grpcCredentials } from '@grpc/grpc-js';

import { AgentKitError } from './errors';

/** Retry policy: only UNAVAILABLE is retried, with exponential backoff and full jitter. */
export interface RetryOptions {
  /** Attempts in all, the first one included; 1 turns retries off. @default 4 */
  maxAttempts?: number;
  /** Backoff ceiling before the first retry, in ms. @default 100 */
  initialBackoffMs?: number;
  /** Largest backoff ceiling, in ms. @default 2000 */
  maxBackoffMs?: number;
  /** Growth of the ceiling per retry. @default 2 */
  multiplier?: number;
  /** Source of randomness for the jitter, in [0, 1). @default Math.random */
  random?: () => number;
}

/** Options of a ToolHub agent client. */
export interface ToolHubAgentClientOptions {
  /** Channel credentials. @default credentials.createInsecure() */
  credentials?: ChannelCredentials;
  /** Deadline of ListTools, GetToolInfo, SearchTools, GetPreloadSet and ListProviders, retries included, in ms. @default 10000 */
  deadlineMs?: number;
  /** Deadline of a RunTool call without timeout_ms, retries included, in ms. @default 60000 */
  runDeadlineMs?: number;
  /**
   * Added to a RunTool's timeout_ms to form its deadline, so that the server's timeout error (which
   * says what to change) arrives before the client gives up. @default 2000
   */
  runDeadlineSlackMs?: number;
  /** Retries on UNAVAILABLE. */
  retry?: RetryOptions;
  /** Send an HTTP/2 keep-alive ping after this long without activity, in ms. @default 60000 */
  keepaliveTimeMs?: number;
  /** Drop the connection when a ping is not answered within this time, in ms. @default 20000 */
  keepaliveTimeoutMs?: number;
  /**
   * Ping idle connections too, so a NAT or load balancer does not silently drop a fleet's idle
   * channel. Servers or proxies that enforce a minimum ping interval (gRPC C-core and Go default to
   * 5 minutes) need keepaliveTimeMs ≥ that, or this off. @default true
   */
  keepalivePermitWithoutCalls?: boolean;
  /** Largest response accepted, in bytes. @default 16777216 (16 MiB) */
  maxReceiveMessageBytes?: number;
  /** Sent as RunToolRequest.caller (the agent id, for statistics and limits). @default '' */
  caller?: string;
  /** Give each RunTool without an idempotency key a fresh one, so that a retried call runs at most once. @default true */
  autoIdempotencyKey?: boolean;
  /** Metadata sent with every call (e.g. an auth token). @default {} */
  metadata?: Record<string, string>;
  /** Extra grpc-js channel options; they override the ones derived above. @default {} */
  channelOptions?: ChannelOptions;
  /**
   * When > 0, connect() waits up to this long for the channel to be ready and fails with
   * `unavailable` otherwise. 0 connects lazily on the first call. @default 0
   */
  waitForReadyMs?: number;
}

export type ResolvedRetryOptions = Required<RetryOptions>;
export type ResolvedClientOptions = Required<Omit<ToolHubAgentClientOptions, 'retry'>> & { retry: ResolvedRetryOptions };

/** Default values of {@link ToolHubAgentClientOptions} (credentials aside). */
export const CLIENT_DEFAULTS = {
  deadlineMs: 10_000,
  runDeadlineMs: 60_000,
  runDeadlineSlackMs: 2_000,
  keepaliveTimeMs: 60_000,
  keepaliveTimeoutMs: 20_000,
  keepalivePermitWithoutCalls: true,
  maxReceiveMessageBytes: 16 * 1024 * 1024,
  caller: '',
  autoIdempotencyKey: true,
  waitForReadyMs: 0,
  retry: { maxAttempts: 4, initialBackoffMs: 100, maxBackoffMs: 2_000, multiplier: 2 },
} as const;

function check(ok: boolean, field: string, rule: string, value: unknown): void {
  if (!ok) throw new AgentKitError('invalid_options', `${field} must be ${rule}; got ${JSON.stringify(value)}.`);
}

const positiveInt = (v: number): boolean => Number.isInteger(v) && v > 0;
const nonNegativeInt = (v: number): boolean => Number.isInteger(v) && v >= 0;

/**
 * Fills in defaults and checks values.
 * @throws AgentKitError invalid_options naming the field of a bad value.
 */
export function withClientDefaults(options: ToolHubAgentClientOptions = {}): ResolvedClientOptions {
  const d = CLIENT_DEFAULTS;
  const retry: ResolvedRetryOptions = {
    maxAttempts: options.retry?.maxAttempts ?? d.retry.maxAttempts,
    initialBackoffMs: options.retry?.initialBackoffMs ?? d.retry.initialBackoffMs,
    maxBackoffMs: options.retry?.maxBackoffMs ?? d.retry.maxBackoffMs,
    multiplier: options.retry?.multiplier ?? d.retry.multiplier,
    random: options.retry?.random ?? Math.random,
  };
  const o: ResolvedClientOptions = {
    credentials: options.credentials ?? grpcCredentials.createInsecure(),
    deadlineMs: options.deadlineMs ?? d.deadlineMs,
    runDeadlineMs: options.runDeadlineMs ?? d.runDeadlineMs,
    runDeadlineSlackMs: options.runDeadlineSlackMs ?? d.runDeadlineSlackMs,
    retry,
    keepaliveTimeMs: options.keepaliveTimeMs ?? d.keepaliveTimeMs,
    keepaliveTimeoutMs: options.keepaliveTimeoutMs ?? d.keepaliveTimeoutMs,
    keepalivePermitWithoutCalls: options.keepalivePermitWithoutCalls ?? d.keepalivePermitWithoutCalls,
    maxReceiveMessageBytes: options.maxReceiveMessageBytes ?? d.maxReceiveMessageBytes,
    caller: options.caller ?? d.caller,
    autoIdempotencyKey: options.autoIdempotencyKey ?? d.autoIdempotencyKey,
    metadata: options.metadata ?? {},
    channelOptions: options.channelOptions ?? {},
    waitForReadyMs: options.waitForReadyMs ?? d.waitForReadyMs,
  };
  check(positiveInt(o.deadlineMs), 'deadlineMs', 'a positive integer (ms)', o.deadlineMs);
  check(positiveInt(o.runDeadlineMs), 'runDeadlineMs', 'a positive integer (ms)', o.runDeadlineMs);
  check(nonNegativeInt(o.runDeadlineSlackMs), 'runDeadlineSlackMs', 'an integer ≥ 0 (ms)', o.runDeadlineSlackMs);
  check(positiveInt(retry.maxAttempts) && retry.maxAttempts <= 10, 'retry.maxAttempts', 'an integer from 1 to 10', retry.maxAttempts);
  check(positiveInt(retry.initialBackoffMs), 'retry.initialBackoffMs', 'a positive integer (ms)', retry.initialBackoffMs);
  check(positiveInt(retry.maxBackoffMs) && retry.maxBackoffMs >= retry.initialBackoffMs, 'retry.maxBackoffMs', 'an integer ≥ retry.initialBackoffMs', retry.maxBackoffMs);
  check(retry.multiplier >= 1, 'retry.multiplier', 'a number ≥ 1', retry.multiplier);
  check(positiveInt(o.keepaliveTimeMs), 'keepaliveTimeMs', 'a positive integer (ms)', o.keepaliveTimeMs);
  check(positiveInt(o.keepaliveTimeoutMs), 'keepaliveTimeoutMs', 'a positive integer (ms)', o.keepaliveTimeoutMs);
  check(positiveInt(o.maxReceiveMessageBytes), 'maxReceiveMessageBytes', 'a positive integer (bytes)', o.maxReceiveMessageBytes);
  check(nonNegativeInt(o.waitForReadyMs), 'waitForReadyMs', 'an integer ≥ 0 (ms)', o.waitForReadyMs);
  return o;
}

/** The grpc-js channel options for resolved client options. */
export function channelOptionsOf(o: ResolvedClientOptions): ChannelOptions {
  return {
    'grpc.keepalive_time_ms': o.keepaliveTimeMs,
    'grpc.keepalive_timeout_ms': o.keepaliveTimeoutMs,
    'grpc.keepalive_permit_without_calls': o.keepalivePermitWithoutCalls ? 1 : 0,
    'grpc.max_receive_message_length': o.maxReceiveMessageBytes,
    // Retries are ours (bounded, jittered, UNAVAILABLE only); grpc-js's transparent retry stays on.
    'grpc.enable_retries': 1,
    'grpc.primary_user_agent': 'toolhub-agent-kit',
    ...o.channelOptions,
  };
}
