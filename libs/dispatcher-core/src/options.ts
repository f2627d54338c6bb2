/** Options of the dispatcher core, with every default in one place. */

export interface DispatcherOptions {
  /** Timeout of a run when neither the call nor the tool sets one. @default 30000 */
  defaultRunTimeoutMs?: number;
  /** Upper bound on any run's timeout, whatever the caller asks. @default 300000 */
  maxRunTimeoutMs?: number;
  /** Timeout of list/info requests to adapters. @default 5000 */
  metadataTimeoutMs?: number;
  /** Largest gRPC request accepted, in bytes. @default 4194304 (4 MiB) */
  maxMessageBytes?: number;
  /** Deepest nesting accepted in tool arguments. @default 32 */
  maxArgumentDepth?: number;
  /** A provider replica is forgotten after this long without a heartbeat. @default 15000 */
  providerTtlMs?: number;
}

export type ResolvedDispatcherOptions = Required<DispatcherOptions>;

export function withDefaults(options: DispatcherOptions = {}): ResolvedDispatcherOptions {
  const resolved: ResolvedDispatcherOptions = {
    defaultRunTimeoutMs: options.defaultRunTimeoutMs ?? 30_000,
    maxRunTimeoutMs: options.maxRunTimeoutMs ?? 300_000,
    metadataTimeoutMs: options.metadataTimeoutMs ?? 5_000,
    maxMessageBytes: options.maxMessageBytes ?? 4 * 1024 * 1024,
    maxArgumentDepth: options.maxArgumentDepth ?? 32,
    providerTtlMs: options.providerTtlMs ?? 15_000,
  };
  if (resolved.defaultRunTimeoutMs > resolved.maxRunTimeoutMs) {
    throw new Error(`defaultRunTimeoutMs (${resolved.defaultRunTimeoutMs}) must not exceed maxRunTimeoutMs (${resolved.maxRunTimeoutMs})`);
  }
  return resolved;
}
