/** Errors of the console's own HTTP layer (sign-in, CSRF, origin); gRPC errors come from the services as they are. */
import { ToolHubError, type ToolHubErrorCode } from '@toolhub/contracts';

export class ConsoleError extends Error {
  override readonly name = 'ConsoleError';

  constructor(
    readonly code: ToolHubErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** The wire form, so the browser sees console errors and service errors in one shape. */
  toToolHubError(): ToolHubError {
    return new ToolHubError(this.code, this.message);
  }
}
