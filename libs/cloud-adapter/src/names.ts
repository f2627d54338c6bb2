/**
 * Tool names: each operation becomes `<alias>_<operationId>` (or `<alias>_<method>_<path>` when it
 * has no operationId) by the SDK's `assignToolNames`: legal, unique and stable from one start to
 * the next (cut with a hash of the native name past 64 characters or on a clash).
 */
export { assignToolNames } from '@toolhub/adapter-sdk';

/** The native name of an operation: its operationId, else `METHOD /path`. */
export function nativeOperationName(method: string, path: string, operationId: unknown): string {
  return typeof operationId === 'string' && operationId.trim() !== '' ? operationId.trim() : `${method.toUpperCase()} ${path}`;
}
