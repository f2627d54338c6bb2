/**
 * The global options, resolved once: explicit flags > environment > defaults.
 */
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
}

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):\d{1,5}$/;

function address(value: string, flag: string, envName: string): string {
  const v = value.trim();
  if (!HOST_PORT.test(v)) throw new CliUsageError(`${flag} (or ${envName}) must be host:port, e.g. 127.0.0.1:50051; got ${JSON.stringify(value)}.`);
  return v;
}

/**
 * Resolves the global options.
 * @throws CliUsageError when an address is not `host:port`.
 */
export function resolveSettings(flags: GlobalFlags, env: Readonly<Record<string, string | undefined>>): Settings {
  return {
    address: address(flags.address ?? (env['TOOLHUB_ADDRESS'] || DEFAULT_ADDRESS), '--address', 'TOOLHUB_ADDRESS'),
    adminAddress: address(flags.adminAddress ?? (env['TOOLHUB_ADMIN_ADDRESS'] || DEFAULT_ADMIN_ADDRESS), '--admin-address', 'TOOLHUB_ADMIN_ADDRESS'),
    json: flags.json === true,
    timeoutMs: flags.timeout,
  };
}
