/**
 * Audit of admin changes: each mutating RegistryAdmin call records who (the authenticated
 * principal), when, what, and the state before and after, in the registry store's audit log.
 */
import type { Principal } from '@toolhub/auth';
import type { AuditEntry as WireAuditEntry } from '@toolhub/contracts';
import { type CallContext, principalOf } from '@toolhub/grpc-edge';
import type { AuditEntry, RegistryStore } from '@toolhub/store';

/**
 * Who a change is recorded as: the principal. In local mode (one trusted user, no credentials)
 * the request's free-text `changed_by` is kept, as before auth existed.
 */
export function changedByOf(call: CallContext, requested: string): string {
  const principal: Principal = principalOf(call);
  return principal.method === 'local' ? requested : principal.id;
}

const json = (v: unknown) => (v === undefined ? '' : JSON.stringify(v));

/**
 * Runs a change and records it: `before` is read first, `run` makes the change, `after` describes
 * the result. A change whose recording fails still happened, so the failure is reported loudly
 * (logged by `onAuditError`) rather than undoing it.
 */
export async function audited<T>(
  store: RegistryStore,
  call: CallContext,
  change: { action: string; target: string; comment?: string; before: () => Promise<unknown>; run: () => Promise<T>; after?: (result: T) => unknown },
  onAuditError: (err: unknown) => void,
): Promise<T> {
  const before = await change.before().catch(() => undefined);
  const result = await change.run();
  const principal = principalOf(call);
  await store
    .appendAudit({
      principal: principal.id,
      roles: principal.roles,
      action: change.action,
      target: change.target,
      beforeJson: json(before),
      afterJson: json(change.after ? change.after(result) : result),
      comment: change.comment ?? '',
      requestId: call.requestId,
    })
    .catch(onAuditError);
  return result;
}

/** The wire form of a stored entry. */
export function toWireAudit(e: AuditEntry): WireAuditEntry {
  return { ...e, roles: [...e.roles] };
}
