/**
 * Report channel for handler failures the bus cannot send anywhere else. Libraries do not log
 * (conventions: one structured logger per app), so each bus takes an `onError` callback instead.
 */

/** Where a handler failure happened. */
export interface HandlerErrorContext {
  /** `subscribe` and `consume` handler throws; `serve` only when the reply itself could not be sent. */
  readonly kind: 'subscribe' | 'serve' | 'consume';
  /** Subject (subscribe, serve) or durable name (consume). */
  readonly source: string;
}

/** Receives handler failures. */
export type HandlerErrorCallback = (error: unknown, context: HandlerErrorContext) => void;
