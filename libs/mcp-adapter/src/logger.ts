/** The logger the adapter writes to: the SDK's pino-compatible interface, plus an optional debug level. */
import type { SdkLogger } from '@toolhub/adapter-sdk';

export interface McpLogger extends SdkLogger {
  /** Chatty diagnostics (server stderr lines, transport errors); skipped when absent. */
  debug?(obj: object, msg?: string): void;
}

export const silentLogger: McpLogger = { info() {}, warn() {}, error() {} };
