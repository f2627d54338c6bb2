/**
 * The closed set of ToolHub error codes, their gRPC status mapping, and the one error class that
 * crosses service boundaries. Local, non-wire errors live in each lib's own errors.ts.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';

import { type AppliedFix, ErrorCode, type ErrorInfo, type FieldViolation } from './gen/toolhub/v1/errors';
import { findCause } from './cause';

/** Wire error codes, as short snake_case names (used in headers, events and logs). */
export type ToolHubErrorCode =
  | 'invalid_argument'
  | 'not_found'
  | 'timeout'
  | 'unavailable'
  | 'rate_limited'
  | 'permission_denied'
  | 'failed'
  | 'failed_precondition'
  | 'already_exists'
  | 'internal'
  | 'unauthenticated';

interface CodeSpec {
  proto: ErrorCode;
  grpc: GrpcStatus;
  /** Safe to retry unchanged. */
  retryable: boolean;
}

const CODES: Record<ToolHubErrorCode, CodeSpec> = {
  invalid_argument: { proto: ErrorCode.ERROR_CODE_INVALID_ARGUMENT, grpc: GrpcStatus.INVALID_ARGUMENT, retryable: false },
  not_found: { proto: ErrorCode.ERROR_CODE_NOT_FOUND, grpc: GrpcStatus.NOT_FOUND, retryable: false },
  timeout: { proto: ErrorCode.ERROR_CODE_TIMEOUT, grpc: GrpcStatus.DEADLINE_EXCEEDED, retryable: true },
  unavailable: { proto: ErrorCode.ERROR_CODE_UNAVAILABLE, grpc: GrpcStatus.UNAVAILABLE, retryable: true },
  rate_limited: { proto: ErrorCode.ERROR_CODE_RATE_LIMITED, grpc: GrpcStatus.RESOURCE_EXHAUSTED, retryable: true },
  permission_denied: { proto: ErrorCode.ERROR_CODE_PERMISSION_DENIED, grpc: GrpcStatus.PERMISSION_DENIED, retryable: false },
  // A tool or upstream failed for a reason of its own; UNKNOWN, because it is neither the caller's fault nor ours.
  failed: { proto: ErrorCode.ERROR_CODE_FAILED, grpc: GrpcStatus.UNKNOWN, retryable: false },
  failed_precondition: { proto: ErrorCode.ERROR_CODE_FAILED_PRECONDITION, grpc: GrpcStatus.FAILED_PRECONDITION, retryable: false },
  already_exists: { proto: ErrorCode.ERROR_CODE_ALREADY_EXISTS, grpc: GrpcStatus.ALREADY_EXISTS, retryable: false },
  internal: { proto: ErrorCode.ERROR_CODE_INTERNAL, grpc: GrpcStatus.INTERNAL, retryable: false },
  // Missing, expired, revoked or foreign credentials: the caller must fix its credentials, not the request.
  unauthenticated: { proto: ErrorCode.ERROR_CODE_UNAUTHENTICATED, grpc: GrpcStatus.UNAUTHENTICATED, retryable: false },
};

/** Every wire error code. */
export const TOOLHUB_ERROR_CODES = Object.keys(CODES) as readonly ToolHubErrorCode[];

/** True when `value` names a ToolHub error code. */
export function isToolHubErrorCode(value: unknown): value is ToolHubErrorCode {
  return typeof value === 'string' && Object.hasOwn(CODES, value);
}

/** The gRPC status a ToolHub error code is returned as at the dispatcher edge. */
export function grpcStatusOf(code: ToolHubErrorCode): GrpcStatus {
  return CODES[code].grpc;
}

/** The ToolHub code for a gRPC status received by a client (INTERNAL when there is no closer one). */
export function codeFromGrpcStatus(grpc: GrpcStatus): ToolHubErrorCode {
  if (grpc === GrpcStatus.CANCELLED) return 'timeout';
  const found = TOOLHUB_ERROR_CODES.find((c) => CODES[c].grpc === grpc);
  return found ?? 'internal';
}

/** proto enum ↔ short name. */
export function errorCodeToProto(code: ToolHubErrorCode): ErrorCode {
  return CODES[code].proto;
}
export function errorCodeFromProto(code: ErrorCode): ToolHubErrorCode {
  return TOOLHUB_ERROR_CODES.find((c) => CODES[c].proto === code) ?? 'internal';
}

/** Structured details of a {@link ToolHubError}. */
export interface ToolHubErrorDetails {
  violations?: FieldViolation[];
  suggestions?: string[];
  parentPath?: string;
  fixes?: AppliedFix[];
  retryable?: boolean;
  retryAfterMs?: number;
  cause?: unknown;
}

/**
 * Marks ToolHub errors across copies of this package. An adapter's bundle, or an adapter built
 * against another release, has its own ToolHubError class, so class identity cannot tell whether
 * a thrown value is a ToolHub error; a registered symbol (`Symbol.for`) is the same in every copy.
 */
const TOOLHUB_ERROR_BRAND = Symbol.for('@toolhub/contracts.ToolHubError');

/**
 * The shape every copy of ToolHubError has: what {@link isToolHubError} checks and
 * {@link ToolHubError.from} copies. Errors are recognised by their code, never by their class.
 */
export interface ToolHubErrorLike {
  readonly code: ToolHubErrorCode;
  readonly message: string;
  readonly violations?: FieldViolation[];
  readonly suggestions?: string[];
  readonly parentPath?: string;
  readonly fixes?: AppliedFix[];
  readonly retryable?: boolean;
  readonly retryAfterMs?: number;
}

/**
 * True for a ToolHub error from any copy of this package: branded, or (for copies from before the
 * brand) named "ToolHubError" with a known code.
 */
function looksLikeToolHubError(value: unknown): value is ToolHubErrorLike {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { code?: unknown; message?: unknown; name?: unknown; [TOOLHUB_ERROR_BRAND]?: unknown };
  if (!isToolHubErrorCode(v.code) || typeof v.message !== 'string') return false;
  return v[TOOLHUB_ERROR_BRAND] === true || v.name === 'ToolHubError';
}

/**
 * Builds an error without capturing a stack trace: for expected answers on hot paths (every shed
 * call of an overload burst), whose stacks are never shown and cost a good part of the error.
 */
export function withoutStackTrace<T>(make: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * An error that crosses a service boundary: a code from the closed set, a message an LLM can act
 * on, and structured details. Serialises to/from toolhub.v1.ErrorInfo.
 *
 * `instanceof ToolHubError` is true for ToolHub errors of every copy of this package (it checks
 * the brand and code, not the class), but prefer {@link isToolHubError} / {@link findToolHubError}.
 */
export class ToolHubError extends Error {
  override readonly name = 'ToolHubError';
  declare readonly [TOOLHUB_ERROR_BRAND]: true;
  readonly violations: FieldViolation[];
  readonly suggestions: string[];
  readonly parentPath: string;
  readonly fixes: AppliedFix[];
  readonly retryable: boolean;
  readonly retryAfterMs: number;

  constructor(
    readonly code: ToolHubErrorCode,
    message: string,
    details: ToolHubErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.violations = details.violations ?? [];
    this.suggestions = details.suggestions ?? [];
    this.parentPath = details.parentPath ?? '';
    this.fixes = details.fixes ?? [];
    this.retryable = details.retryable ?? CODES[code].retryable;
    this.retryAfterMs = details.retryAfterMs ?? 0;
    Object.defineProperty(this, TOOLHUB_ERROR_BRAND, { value: true });
  }

  /** Recognises ToolHub errors by brand and code, so errors from other copies of this package match. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return looksLikeToolHubError(value);
  }

  /**
   * This copy's ToolHubError for a ToolHub error of any copy (returned as is when it is one of ours);
   * the original stays reachable as `cause`.
   */
  static from(err: ToolHubErrorLike): ToolHubError {
    if (Object.getPrototypeOf(err) === ToolHubError.prototype) return err as ToolHubError;
    return new ToolHubError(err.code, err.message, {
      violations: err.violations,
      suggestions: err.suggestions,
      parentPath: err.parentPath,
      fixes: err.fixes,
      retryable: err.retryable,
      retryAfterMs: err.retryAfterMs,
      cause: err,
    });
  }

  static invalidArgument(message: string, violations: Array<Partial<FieldViolation> & { field: string; message: string }> = [], fixes: AppliedFix[] = []): ToolHubError {
    return new ToolHubError('invalid_argument', message, {
      violations: violations.map((v) => ({ expected: '', example: '', ...v })),
      fixes,
    });
  }

  static notFound(message: string, suggestions: string[] = [], parentPath = ''): ToolHubError {
    return new ToolHubError('not_found', message, { suggestions, parentPath });
  }

  static timeout(message: string): ToolHubError {
    return new ToolHubError('timeout', message);
  }

  static unavailable(message: string, cause?: unknown): ToolHubError {
    return new ToolHubError('unavailable', message, { cause });
  }

  static failed(message: string, cause?: unknown): ToolHubError {
    return new ToolHubError('failed', message, { cause });
  }

  static internal(message: string, cause?: unknown): ToolHubError {
    return new ToolHubError('internal', message, { cause });
  }

  /** The gRPC status this error maps to. */
  get grpcStatus(): GrpcStatus {
    return grpcStatusOf(this.code);
  }

  toErrorInfo(): ErrorInfo {
    return {
      code: errorCodeToProto(this.code),
      message: this.message,
      violations: this.violations,
      suggestions: this.suggestions,
      parentPath: this.parentPath,
      fixes: this.fixes,
      retryable: this.retryable,
      retryAfterMs: this.retryAfterMs,
    };
  }

  static fromErrorInfo(info: ErrorInfo): ToolHubError {
    return new ToolHubError(errorCodeFromProto(info.code), info.message, {
      violations: info.violations,
      suggestions: info.suggestions,
      parentPath: info.parentPath,
      fixes: info.fixes,
      retryable: info.retryable,
      retryAfterMs: info.retryAfterMs,
    });
  }
}

/**
 * The ToolHub error in `err` or its `cause` chain (errors wrapped by other libraries), from any copy
 * of this package, as this copy's ToolHubError (same code, message and details).
 */
export function findToolHubError(err: unknown): ToolHubError | undefined {
  const found = findCause(err, looksLikeToolHubError);
  return found === undefined ? undefined : ToolHubError.from(found);
}

/**
 * True when `err` itself is a ToolHub error, from any copy of this package (checked by brand and
 * code, not by class). Optionally only for one code: `isToolHubError(err, 'not_found')`.
 */
export function isToolHubError(err: unknown, code?: ToolHubErrorCode): err is ToolHubError {
  return looksLikeToolHubError(err) && (code === undefined || err.code === code);
}

/**
 * Converts anything thrown into a ToolHubError. Unknown failures become `internal` — an unexpected
 * failure is never dressed up as the caller's fault.
 */
export function toToolHubError(err: unknown, context = 'Unexpected failure'): ToolHubError {
  const found = findToolHubError(err);
  if (found) return found;
  const detail = err instanceof Error ? err.message : String(err);
  return ToolHubError.internal(`${context}: ${detail}. This is a ToolHub fault, not a problem with the call; retrying later may help.`, err);
}
