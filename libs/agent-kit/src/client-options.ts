/** Options of {@link ToolHubAgentClient.connect}, with every default filled in one place. */
import { type ChannelCredentials, type ChannelOptions, credentials as grpcCredentials } from '@grpc/grpc-js';

import { readFileSync } from 'node:fs';

import { AgentKitError } from './errors';

/** TLS of the channel, from PEM files (read once, when the client is created). */
export interface ClientTlsOptions {
  /** CA that signed the server's certificate (a private CA). @default the system's trusted CAs */
  caFile?: string;
  /** Client certificate for mTLS (the server maps its CN to roles); needs `keyFile`. */
  certFile?: string;
  /** Private key of `certFile`. */
  keyFile?: string;
}

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
  /**
   * Channel credentials, for anything `tls` does not cover. Not together with `tls`.
   * @default TLS when `tls` is set, else credentials.createInsecure()
   */
  credentials?: ChannelCredentials;
  /** TLS: `true` trusts the system's CAs; an object names a private CA and/or a client certificate (mTLS). @default false (plaintext) */
  tls?: boolean | ClientTlsOptions;
  /**
   * API key or JWT, sent as `authorization: Bearer <token>` with every call (a call's own
   * `authorization` metadata wins). Read from the environment only through {@link clientOptionsFromEnv}.
   * @default '' (none: local mode)
   */
  token?: string;
  /**
   * Send `token` over a plaintext channel to a host other than this machine. Off, connect() refuses:
   * whoever reads the credential on the network path can reuse it. Turn on only where the network
   * is protected otherwise (a service mesh with mTLS, a VPN). Custom `credentials` are trusted as
   * given. @default false (TOOLHUB_ALLOW_PLAINTEXT_TOKEN=1 through {@link clientOptionsFromEnv})
   */
  allowPlaintextToken?: boolean;
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
export type ResolvedClientOptions = Required<Omit<ToolHubAgentClientOptions, 'retry' | 'tls'>> & { retry: ResolvedRetryOptions };

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
  token: '',
  allowPlaintextToken: false,
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
  if (options.credentials && options.tls) throw new AgentKitError('invalid_options', 'credentials and tls cannot both be set: pass TLS files through tls, or build the ChannelCredentials yourself.');
  const o: ResolvedClientOptions = {
    credentials: options.credentials ?? (options.tls ? tlsChannelCredentials(options.tls === true ? {} : options.tls) : grpcCredentials.createInsecure()),
    deadlineMs: options.deadlineMs ?? d.deadlineMs,
    runDeadlineMs: options.runDeadlineMs ?? d.runDeadlineMs,
    runDeadlineSlackMs: options.runDeadlineSlackMs ?? d.runDeadlineSlackMs,
    retry,
    keepaliveTimeMs: options.keepaliveTimeMs ?? d.keepaliveTimeMs,
    keepaliveTimeoutMs: options.keepaliveTimeoutMs ?? d.keepaliveTimeoutMs,
    keepalivePermitWithoutCalls: options.keepalivePermitWithoutCalls ?? d.keepalivePermitWithoutCalls,
    maxReceiveMessageBytes: options.maxReceiveMessageBytes ?? d.maxReceiveMessageBytes,
    caller: options.caller ?? d.caller,
    token: options.token ?? d.token,
    allowPlaintextToken: options.allowPlaintextToken ?? d.allowPlaintextToken,
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
  check(!/\s/.test(o.token), 'token', 'an API key or JWT without whitespace (the kit adds "Bearer ")', o.token.length > 12 ? `${o.token.slice(0, 4)}…` : '…');
  return o;
}

function readPem(file: string, field: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new AgentKitError('invalid_options', `tls.${field} ${JSON.stringify(file)} cannot be read: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * grpc-js TLS credentials from PEM files.
 * @throws AgentKitError invalid_options when a file cannot be read, or only one of certFile and keyFile is set.
 */
export function tlsChannelCredentials(tls: ClientTlsOptions): ChannelCredentials {
  if (Boolean(tls.certFile) !== Boolean(tls.keyFile)) throw new AgentKitError('invalid_options', 'tls.certFile and tls.keyFile go together (a client certificate and its key, for mTLS).');
  return grpcCredentials.createSsl(
    tls.caFile ? readPem(tls.caFile, 'caFile') : null,
    tls.keyFile ? readPem(tls.keyFile, 'keyFile') : null,
    tls.certFile ? readPem(tls.certFile, 'certFile') : null,
  );
}

/**
 * The credential settings of the environment, for an app that wants them (explicit, so a library
 * never sends a credential it found in the environment to an address it was handed):
 * `TOOLHUB_TOKEN` (API key or JWT), `TOOLHUB_CLIENT_CA` (CA of the server's certificate),
 * `TOOLHUB_CLIENT_CERT` + `TOOLHUB_CLIENT_KEY` (client certificate, mTLS), `TOOLHUB_CLIENT_TLS=1`
 * (TLS with the system's CAs), `TOOLHUB_ALLOW_PLAINTEXT_TOKEN=1` (see {@link ToolHubAgentClientOptions.allowPlaintextToken}).
 * Any of the TLS files turns TLS on. Spread the result into the
 * options: `connect(address, { ...clientOptionsFromEnv(), caller: 'agent-7' })`.
 * @param env @default process.env
 */
export function clientOptionsFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): Pick<ToolHubAgentClientOptions, 'token' | 'tls' | 'allowPlaintextToken'> {
  const out: Pick<ToolHubAgentClientOptions, 'token' | 'tls' | 'allowPlaintextToken'> = {};
  const token = env['TOOLHUB_TOKEN']?.trim();
  if (token) out.token = token;
  if (/^(1|true|yes|on)$/i.test(env['TOOLHUB_ALLOW_PLAINTEXT_TOKEN'] ?? '')) out.allowPlaintextToken = true;
  const files: ClientTlsOptions = {};
  if (env['TOOLHUB_CLIENT_CA']) files.caFile = env['TOOLHUB_CLIENT_CA'];
  if (env['TOOLHUB_CLIENT_CERT']) files.certFile = env['TOOLHUB_CLIENT_CERT'];
  if (env['TOOLHUB_CLIENT_KEY']) files.keyFile = env['TOOLHUB_CLIENT_KEY'];
  if (Object.keys(files).length > 0) out.tls = files;
  else if (/^(1|true|yes|on)$/i.test(env['TOOLHUB_CLIENT_TLS'] ?? '')) out.tls = true;
  return out;
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
