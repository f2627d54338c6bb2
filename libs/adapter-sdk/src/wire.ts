/**
 * The reply convention of the adapter protocol on the bus: a success reply is the encoded response
 * message; an error reply carries `Nats-Service-Error-Code` (the ToolHub code name),
 * `Nats-Service-Error` (the message) and an encoded toolhub.v1.ErrorInfo body.
 */
import type { BusReply } from '@toolhub/bus';
import {
  ErrorInfo,
  HEADER_ERROR,
  HEADER_ERROR_CODE,
  isToolHubErrorCode,
  ToolHubError,
  toToolHubError,
} from '@toolhub/contracts';

/** Header values must stay single-line and short; the full message is in the body. */
const MAX_HEADER_MESSAGE = 512;

/** Builds the error reply for anything thrown while serving a request. */
export function errorReply(err: unknown): BusReply {
  const e = toToolHubError(err);
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
    try {
      return throwRemote(ErrorInfo.decode(reply.data));
    } catch (err) {
      if (err instanceof ToolHubError) throw err;
      // A foreign service (e.g. the NATS services API) may send a non-ToolHub error body.
      const safeCode = isToolHubErrorCode(code) ? code : 'internal';
      throw new ToolHubError(safeCode, reply.headers[HEADER_ERROR] ?? `remote error ${code}`);
    }
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
