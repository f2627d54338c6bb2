/**
 * Glue between the Bus port and NATS.js v3: header conversion, error translation, and server
 * feature checks. Kept apart so nats-bus.ts reads as the Bus contract, not as NATS plumbing.
 */

import { causeChain } from '@toolhub/contracts';
import { errors as natsErrors, headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/nats-core';

import { type Headers } from './bus';
import { BusError, type BusErrorCode } from './errors';

/** Our plain record → NATS headers (undefined when empty, so no header block is sent). */
export function toNatsHeaders(headers: Headers | undefined): MsgHdrs | undefined {
  if (!headers) return undefined;
  const entries = Object.entries(headers);
  if (entries.length === 0) return undefined;
  const h = natsHeaders();
  for (const [k, v] of entries) h.set(k, v);
  return h;
}

/** NATS headers → our plain record; a repeated header keeps its first value. */
export function fromNatsHeaders(headers: MsgHdrs | undefined): Headers {
  const out: Headers = {};
  if (!headers) return out;
  for (const [k, values] of headers) {
    const first = values[0];
    if (first !== undefined && !(k in out)) out[k] = first;
  }
  return out;
}

const causes = causeChain;

function named(err: unknown, name: string): boolean {
  return err instanceof Error && err.name === name;
}

/**
 * Translates a NATS.js error into a BusError. Checks classes along the `cause` chain (NATS.js wraps
 * TimeoutError/NoRespondersError in RequestError) and falls back to `fallback` for anything else.
 */
export function toBusError(err: unknown, fallback: BusErrorCode, what: string): BusError {
  if (err instanceof BusError) return err;
  const chain = causes(err);
  const has = (cls: abstract new (...args: never[]) => Error, name: string): boolean =>
    chain.some((e) => e instanceof cls || named(e, name));
  const detail = err instanceof Error ? err.message : String(err);
  if (has(natsErrors.NoRespondersError, 'NoRespondersError')) {
    return new BusError('no_responders', `${what}: no service is listening`, { cause: err });
  }
  if (has(natsErrors.TimeoutError, 'TimeoutError')) {
    return new BusError('timeout', `${what}: timed out`, { cause: err });
  }
  if (has(natsErrors.ClosedConnectionError, 'ClosedConnectionError') || has(natsErrors.DrainingConnectionError, 'DrainingConnectionError')) {
    return new BusError('closed', `${what}: the NATS connection is closed`, { cause: err });
  }
  if (chain.some((e) => e instanceof Error && /connection (closed|disconnected)/.test(e.message))) {
    return new BusError('connection_failed', `${what}: ${detail}`, { cause: err });
  }
  return new BusError(fallback, `${what}: ${detail}`, { cause: err });
}

/** True when the connected server is at least `major.minor`. */
export function serverAtLeast(nc: NatsConnection, major: number, minor: number): boolean {
  const version = nc.info?.version ?? '0.0.0';
  const [maj = 0, min = 0] = version.split('.').map((p) => Number.parseInt(p, 10));
  return maj > major || (maj === major && min >= minor);
}
