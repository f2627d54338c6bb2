/**
 * The reply convention of the adapter protocol on the bus: a success reply is the encoded response
 * message; an error reply carries `Nats-Service-Error-Code` (the ToolHub code name),
 * `Nats-Service-Error` (the message) and an encoded toolhub.v1.ErrorInfo body.
 */
import type { BusReply } from '@toolhub/bus';
import {
  boundedError,
  ErrorInfo,
  HEADER_ERROR,
  HEADER_ERROR_CODE,
  isToolHubErrorCode,
  ToolHubError,
  toToolHubError,
} from '@toolhub/contracts';

import type { Redactor } from './redaction';

/** Header values must stay single-line and short; the full message is in the body. */
const MAX_HEADER_MESSAGE = 512;

/**
 * Builds the error reply for anything thrown while serving a request; with `redactor`, every text
 * of it (message, violations, suggestions, ...) is redacted first.
 */
export function errorReply(err: unknown, redactor?: Redactor): BusReply {
  // Redact before bounding: a message cut through the middle of a secret would no longer match it.
  const source = redactor && !redactor.empty ? ToolHubError.fromErrorInfo(redactor.redactJson(toToolHubError(err).toErrorInfo())) : err;
  // Errors may quote the request (a huge argument): bounded, the body stays far below the bus's
  // payload limit, past which the real error would be replaced by a bare "reply too large".
  const e = boundedError(source);
  return {
    data: ErrorInfo.encode(e.toErrorInfo()).finish(),
    headers: {
      [HEADER_ERROR_CODE]: e.code,
      [HEADER_ERROR]: e.message.replace(/[\r\n]+/g, ' ').slice(0, MAX_HEADER_MESSAGE),
    },
  };
}

/** Builds a success reply from an encoded message. */
export function okReply(data: Uint8Array): BusReply {
  return { data, headers: {} };
}

/**
 * Decodes a reply: returns the decoded message, or throws the ToolHubError an error reply carries.
 * @throws ToolHubError from the remote side, or internal when the reply cannot be decoded.
 */
export function readReply<T>(reply: BusReply, decode: (bytes: Uint8Array) => T): T {
  const code = reply.headers[HEADER_ERROR_CODE];
  if (code !== undefined) {
    let info: ErrorInfo | undefined;
    try {
      info = ErrorInfo.decode(reply.data);
    } catch {
      // A foreign service (e.g. the NATS services API) may send a non-ToolHub error body.
    }
    // An empty body decodes as an empty ErrorInfo: the bus's own error replies (a handler that
    // threw, a reply too large) carry only the headers, so the headers are the error then.
    if (info?.message) throwRemote(info);
    const safeCode = isToolHubErrorCode(code) ? code : 'internal';
    throw new ToolHubError(safeCode, reply.headers[HEADER_ERROR] || `The remote service failed with ${code} and sent no message.`);
  }
  try {
    return decode(reply.data);
  } catch (err) {
    throw ToolHubError.internal('Received a reply that could not be decoded (adapter and dispatcher on incompatible contract versions?)', err);
  }
}

function throwRemote(info: ErrorInfo): never {
  throw ToolHubError.fromErrorInfo(info);
}
