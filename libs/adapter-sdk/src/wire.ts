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
/**
 * Largest error body. Errors may quote the request (a huge argument); a body past the bus's payload
 * limit would be replaced by a bare "reply too large" error and the real one lost.
 */
const MAX_ERROR_BODY = 64 * 1024;
const MAX_MESSAGE_CHARS = 4000;
const MAX_DETAIL_CHARS = 500;
const MAX_ITEMS = 50;

const clip = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max)} … (${text.length - max} more characters cut)`);

/** The ErrorInfo with its strings and lists cut so that it stays far below the bus payload limit. */
function boundedInfo(info: ErrorInfo): ErrorInfo {
  return {
    ...info,
    message: clip(info.message, MAX_MESSAGE_CHARS),
    violations: info.violations.slice(0, MAX_ITEMS).map((v) => ({
      field: clip(v.field, MAX_DETAIL_CHARS),
      message: clip(v.message, MAX_DETAIL_CHARS),
      expected: clip(v.expected, MAX_DETAIL_CHARS),
      example: clip(v.example, MAX_DETAIL_CHARS),
    })),
    suggestions: info.suggestions.slice(0, MAX_ITEMS).map((x) => clip(x, MAX_DETAIL_CHARS)),
    parentPath: clip(info.parentPath, MAX_DETAIL_CHARS),
    fixes: info.fixes.slice(0, MAX_ITEMS).map((f) => ({ field: clip(f.field, MAX_DETAIL_CHARS), description: clip(f.description, MAX_DETAIL_CHARS) })),
  };
}

/** Builds the error reply for anything thrown while serving a request. */
export function errorReply(err: unknown): BusReply {
  const e = toToolHubError(err);
  let data = ErrorInfo.encode(e.toErrorInfo()).finish();
  if (data.length > MAX_ERROR_BODY) data = ErrorInfo.encode(boundedInfo(e.toErrorInfo())).finish();
  return {
    data,
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
