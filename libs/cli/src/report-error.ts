/**
 * Turns any failure of a command into what the user sees and the exit code: the server's own
 * message (written to be acted on), then its field violations, suggestions, repairs and retry
 * advice, and for a server that cannot be reached, how to start one.
 */
import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { AgentKitError, findToolHubCallError, type ToolHubCallError } from '@toolhub/agent-kit';
import { type ErrorInfo, errorCodeFromProto, ErrorCode, type ToolHubErrorCode } from '@toolhub/contracts';

import { ADMIN_METHOD_PREFIX } from './admin-client';
import { isCliUsageError } from './errors';
import { EXIT_CODES, exitCodeForError, type ExitCode } from './exit-codes';
import type { Output } from './output';
import type { Settings } from './settings';

/** The error document of `--json` (printed on stdout, as the one JSON document). */
export interface JsonError {
  error: {
    code: ToolHubErrorCode | 'usage';
    message: string;
    violations?: { field: string; message: string; expected?: string; example?: string }[];
    suggestions?: string[];
    parentPath?: string;
    fixes?: { field: string; description: string }[];
    retryable?: boolean;
    retryAfterMs?: number;
    hint?: string;
  };
  exitCode: ExitCode;
}

/** The lines that follow an error's message: violations, suggestions, parent path, repairs, retry advice. */
export function detailLines(info: ErrorInfo | undefined, message: string): string[] {
  if (!info) return [];
  const lines: string[] = [];
  for (const v of info.violations) {
    const parts = [`field ${v.field || '/'}: ${v.message}`];
    if (v.expected) parts.push(`expected ${v.expected}`);
    if (v.example) parts.push(`e.g. ${v.example}`);
    // The message often lists the same violations; repeat them only when it does not.
    if (!message.includes(v.message)) lines.push(`  ${parts.join('; ')}`);
  }
  const code = info.code === ErrorCode.ERROR_CODE_UNSPECIFIED ? undefined : errorCodeFromProto(info.code);
  // Server messages often name the suggestions and the parent path already; say them once.
  if (info.suggestions.some((s) => !message.includes(s))) lines.push(`  ${code === 'not_found' ? 'did you mean' : 'try'}: ${info.suggestions.join(', ')}`);
  if (code === 'not_found' && info.parentPath && !message.includes(info.parentPath)) lines.push(`  nearest category: ${info.parentPath}`);
  for (const f of info.fixes) lines.push(`  repaired ${f.field}: ${f.description}`);
  if (info.retryable) lines.push(info.retryAfterMs > 0 ? `  retry: the same call may succeed after ${info.retryAfterMs} ms` : '  retry: the same call may succeed later');
  return lines;
}

/** True when the call never reached a ToolHub server (refused, DNS, TLS...): no ErrorInfo, UNAVAILABLE. */
export function isUnreachable(err: ToolHubCallError): boolean {
  return err.code === 'unavailable' && !err.info && err.grpcStatus === GrpcStatus.UNAVAILABLE;
}

/** grpc-js's "No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:1. Resolution note: " → "connect ECONNREFUSED 127.0.0.1:1". */
function transportCause(details: string): string {
  const cleaned = details
    .replace(/^No connection established\. Last error: /, '')
    .replace(/^Error: /, '')
    .replace(/\.?\s*Resolution note:.*$/s, '')
    .trim();
  return cleaned || details;
}

function unreachable(err: ToolHubCallError, settings: Settings | undefined): { message: string; hint: string } {
  const admin = err.method.startsWith(ADMIN_METHOD_PREFIX);
  const address = admin ? settings?.adminAddress : settings?.address;
  const cause = (err.details.cause as ServiceError | undefined)?.details ?? err.message;
  const what = admin ? 'the ToolHub registry admin API' : 'the ToolHub agent API';
  const flag = admin ? '--admin-address or TOOLHUB_ADMIN_ADDRESS' : '--address or TOOLHUB_ADDRESS';
  return {
    message: `cannot reach ${what} at ${address ?? '(unknown address)'} (${transportCause(cause)}).`,
    hint:
      `Is ToolHub running? Start it with \`npm start\` in the repository (one process: agent API on 127.0.0.1:50051, admin API on 127.0.0.1:50052), or point the CLI at a running one with ${flag}.` +
      (settings && !settings.tls ? ' If it serves TLS, add --ca <file> (its CA) or --tls.' : ''),
  };
}

function jsonOfInfo(info: ErrorInfo | undefined): Partial<JsonError['error']> {
  if (!info) return {};
  return {
    violations: info.violations.map((v) => ({ field: v.field, message: v.message, ...(v.expected ? { expected: v.expected } : {}), ...(v.example ? { example: v.example } : {}) })),
    suggestions: info.suggestions,
    ...(info.parentPath ? { parentPath: info.parentPath } : {}),
    fixes: info.fixes.map((f) => ({ field: f.field, description: f.description })),
    retryable: info.retryable,
    ...(info.retryAfterMs ? { retryAfterMs: info.retryAfterMs } : {}),
  };
}

function emit(out: Output, exitCode: ExitCode, code: JsonError['error']['code'], message: string, info: ErrorInfo | undefined, hint?: string): ExitCode {
  if (out.json) {
    const doc: JsonError = { error: { code, message, ...jsonOfInfo(info), ...(hint ? { hint } : {}) }, exitCode };
    out.document(doc);
  } else {
    out.note(`error ${code}: ${message}`, ...detailLines(info, message), ...(hint ? [`hint: ${hint}`] : []));
  }
  return exitCode;
}

/** Reports `err` (stderr, or the JSON error document with `--json`) and returns the exit code. */
export function reportError(err: unknown, out: Output, settings?: Settings): ExitCode {
  if (isCliUsageError(err)) return emit(out, EXIT_CODES.usage, 'usage', err.message, undefined, err.hint);
  const callErr = findToolHubCallError(err);
  if (callErr) {
    if (isUnreachable(callErr)) {
      const { message, hint } = unreachable(callErr, settings);
      return emit(out, EXIT_CODES.unavailable, 'unavailable', message, undefined, hint);
    }
    const hint =
      callErr.code === 'timeout' && !callErr.info
        ? 'raise --timeout (ms), or check that the provider behind the tool is healthy (toolhub providers).'
        : callErr.code === 'unauthenticated'
          ? settings?.token
            ? 'the credential in TOOLHUB_TOKEN was refused: check that it is current (not revoked, not expired) and meant for this ToolHub.'
            : 'this ToolHub requires credentials: set TOOLHUB_TOKEN to an API key or JWT (or give a client certificate with --cert and --key).'
          : undefined;
    return emit(out, exitCodeForError(callErr.code), callErr.code, callErr.message, callErr.info, hint);
  }
  // invalid_options reaching the CLI comes from its settings (e.g. an unreadable --ca file): a usage error.
  if (err instanceof AgentKitError) return err.code === 'invalid_options' ? emit(out, EXIT_CODES.usage, 'usage', err.message, undefined) : emit(out, EXIT_CODES.other, 'internal', err.message, undefined);
  const message = err instanceof Error ? err.message : String(err);
  return emit(out, EXIT_CODES.other, 'internal', `unexpected failure in the CLI: ${message}`, undefined);
}
