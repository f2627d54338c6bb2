/**
 * The global options, resolved once: explicit flags > environment > defaults.
 */
import { clientOptionsFromEnv, type ClientTlsOptions } from '@toolhub/agent-kit';

import { CliUsageError } from './errors';

/** Default address of the agent API (the one-process mode's dispatcher). */
export const DEFAULT_ADDRESS = '127.0.0.1:50051';
/** Default address of the registry admin API (the one-process mode's admin server). */
export const DEFAULT_ADMIN_ADDRESS = '127.0.0.1:50052';
/** Default deadline of one command's calls, in ms. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** Global options as commander hands them over. */
export interface GlobalFlags {
  address?: string;
  adminAddress?: string;
  json?: boolean;
  timeout?: number;
  tls?: boolean;
  ca?: string;
  cert?: string;
  key?: string;
}

/** The resolved global options. */
export interface Settings {
  /** Agent API, `host:port`. @default TOOLHUB_ADDRESS, else 127.0.0.1:50051 */
  address: string;
  /** Registry admin API, `host:port`. @default TOOLHUB_ADMIN_ADDRESS, else 127.0.0.1:50052 */
  adminAddress: string;
  /** Print one JSON document instead of tables. @default false */
  json: boolean;
  /** `--timeout`: the deadline of each call; for `run`, the tool's timeout_ms. Undefined when not given. */
  timeoutMs: number | undefined;
  /** API key or JWT sent to both APIs as `authorization: Bearer …`. @default TOOLHUB_TOKEN, else none */
  token: string;
  /**
   * TLS of both APIs: `true` with the system's CAs, or PEM files (private CA, client certificate).
   * @default --ca/--cert/--key, else TOOLHUB_CLIENT_CA/_CERT/_KEY, else --tls or TOOLHUB_CLIENT_TLS; else plaintext
   */
  tls: ClientTlsOptions | true | undefined;
  /** Send the token in plaintext to another machine. @default TOOLHUB_ALLOW_PLAINTEXT_TOKEN=1, else false */
  allowPlaintextToken: boolean;
}

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):\d{1,5}$/;

function address(value: string, flag: string, envName: string): string {
  const v = value.trim();
  if (!HOST_PORT.test(v)) throw new CliUsageError(`${flag} (or ${envName}) must be host:port, e.g. 127.0.0.1:50051; got ${JSON.stringify(value)}.`);
  return v;
}

/**
 * Resolves the global options.
 * @throws CliUsageError when an address is not `host:port`, or a client certificate comes without its key.
 */
export function resolveSettings(flags: GlobalFlags, env: Readonly<Record<string, string | undefined>>): Settings {
  const fromEnv = clientOptionsFromEnv(env);
  // Each file: its flag, else its variable.
  const files: ClientTlsOptions = { ...(typeof fromEnv.tls === 'object' ? fromEnv.tls : {}) };
  if (flags.ca) files.caFile = flags.ca;
  if (flags.cert) files.certFile = flags.cert;
  if (flags.key) files.keyFile = flags.key;
  if (Boolean(files.certFile) !== Boolean(files.keyFile)) {
    throw new CliUsageError('A client certificate needs its key: give both --cert and --key (or TOOLHUB_CLIENT_CERT and TOOLHUB_CLIENT_KEY).');
  }
  const tls = Object.keys(files).length > 0 ? files : flags.tls === true || fromEnv.tls === true ? true : undefined;
  return {
    address: address(flags.address ?? (env['TOOLHUB_ADDRESS'] || DEFAULT_ADDRESS), '--address', 'TOOLHUB_ADDRESS'),
    adminAddress: address(flags.adminAddress ?? (env['TOOLHUB_ADMIN_ADDRESS'] || DEFAULT_ADMIN_ADDRESS), '--admin-address', 'TOOLHUB_ADMIN_ADDRESS'),
    json: flags.json === true,
    timeoutMs: flags.timeout,
    token: fromEnv.token ?? '',
    tls,
    allowPlaintextToken: fromEnv.allowPlaintextToken === true,
  };
}
