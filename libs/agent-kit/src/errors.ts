/**
 * Errors of @toolhub/agent-kit. `ToolHubCallError` wraps a failed gRPC call (a wire error, with
 * the server's decoded ErrorInfo); `AgentKitError` reports a mistake of the embedding program
 * (bad options, a closed client). They are kept apart as the MCP SDK keeps SdkError apart from
 * ProtocolError: only the first one says anything about the tool call itself.
 */
import type { status as GrpcStatus } from '@grpc/grpc-js';
import { type ErrorInfo, findCause, ToolHubError, type ToolHubErrorCode } from '@toolhub/contracts';

/** A failed ToolHub RPC: the ToolHub code, the raw gRPC status and the server's ErrorInfo (when it sent one). */
export class ToolHubCallError extends Error {
  override readonly name = 'ToolHubCallError';

  constructor(
    /** ToolHub wire code: from the ErrorInfo trailer when present, else from the gRPC status. */
    readonly code: ToolHubErrorCode,
    message: string,
    readonly details: {
      /** gRPC method, e.g. `RunTool`. */
      method: string;
      grpcStatus: GrpcStatus;
      /** The decoded `toolhub-error-bin` trailer; undefined when the server did not send one (e.g. a transport failure). */
      info?: ErrorInfo;
      /** Attempts made, retries included. */
      attempts: number;
      cause?: unknown;
    },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
  }

  get method(): string {
    return this.details.method;
  }

  get grpcStatus(): GrpcStatus {
    return this.details.grpcStatus;
  }

  get info(): ErrorInfo | undefined {
    return this.details.info;
  }

  get attempts(): number {
    return this.details.attempts;
  }

  /** The same failure as the contract's ToolHubError (violations, suggestions, parent path, fixes). */
  toToolHubError(): ToolHubError {
    if (this.info) return ToolHubError.fromErrorInfo({ ...this.info, message: this.info.message || this.message });
    return new ToolHubError(this.code, this.message, { cause: this });
  }
}

/** What went wrong locally: `invalid_options` (bad options or arguments of a kit call) or `closed` (the client was closed). */
export type AgentKitErrorCode = 'invalid_options' | 'closed';

/** A mistake of the program embedding the kit (not of the model's tool call). */
export class AgentKitError extends Error {
  override readonly name = 'AgentKitError';

  constructor(
    readonly code: AgentKitErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

function findInChain<T>(err: unknown, ctor: abstract new (...args: never[]) => T): T | undefined {
  return findCause(err, (e): e is T => e instanceof ctor);
}

/** The ToolHubCallError in `err`'s cause chain, if any. */
export function findToolHubCallError(err: unknown): ToolHubCallError | undefined {
  return findInChain(err, ToolHubCallError);
}

/** True when `err` is a ToolHubCallError (with `code`: of that ToolHub code). Use {@link findToolHubCallError} to look through `cause`. */
export function isToolHubCallError(err: unknown, code?: ToolHubErrorCode): err is ToolHubCallError {
  return err instanceof ToolHubCallError && (code === undefined || err.code === code);
}

/** True when `err` or something in its cause chain is an AgentKitError (with `code`: of that code). */
export function hasAgentKitError(err: unknown, code?: AgentKitErrorCode): boolean {
  const found = findInChain(err, AgentKitError);
  return found !== undefined && (code === undefined || found.code === code);
}
