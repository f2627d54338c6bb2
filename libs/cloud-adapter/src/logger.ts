/** The logger the adapter writes to: the SDK's pino-compatible interface, plus an optional debug level. */
import type { SdkLogger } from '@toolhub/adapter-sdk';

export interface CloudLogger extends SdkLogger {
  /** Chatty diagnostics (retries); skipped when absent. */
  debug?(obj: object, msg?: string): void;
}

export const silentLogger: CloudLogger = { info() {}, warn() {}, error() {} };
