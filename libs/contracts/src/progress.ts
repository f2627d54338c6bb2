/**
 * Progress of a running tool call as every door sees it: reported by a tool through the adapter
 * SDK, mapped from an upstream MCP server's `notifications/progress` or an HTTP API's long-running
 * status, and passed on to whoever watches the call (MCP door, a streaming RPC, an async run).
 */
export interface RunProgress {
  /** Work done so far, in the tool's own units; increases with every update. */
  progress?: number;
  /** Total work when known, in the same units as `progress`. */
  total?: number;
  /** A short human-readable status line ("uploading part 3 of 8"). */
  message?: string;
  /** A log line the tool emitted, when the update carries one instead of progress. */
  log?: string;
}
