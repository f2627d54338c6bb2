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

/** Options of {@link failureAuditor}. */
export interface FailureAuditOptions {
  /** Audit entries written for failures per minute; past it they are counted and logged once a minute. @default 60 */
  entriesPerMinute?: number;
  /** Where each failure (and the per-minute count of those not audited) is logged. */
  log?: { warn(obj: object, msg: string): void };
  onAuditError?: (err: unknown) => void;
  /** @default Date.now */
  now?: () => number;
}

/**
 * Records every refused, failed or unauthenticated admin call (a grpc-edge FailureObserver): an
 * audit entry `refused:<Method>` (no credentials, wrong role) or `failed:<Method>` with the reason
 * in `comment`, written for the first `entriesPerMinute` failures of each minute, so a flood of bad
 * calls cannot flood the audit store; the rest are counted and summed up in one log line a minute.
 * Every failure is also logged while within the budget.
 */
export function failureAuditor(store: RegistryStore, options: FailureAuditOptions = {}) {
  const perMinute = options.entriesPerMinute ?? 60;
  const now = options.now ?? Date.now;
  let windowStart = 0;
  let written = 0;
  let skipped = 0;
  const stats = { audited: 0, skipped: 0 };
  const observer = (failure: { method: string; error: { code: string; message: string }; principal: Principal | undefined; requestId: string }): void => {
    const t = now();
    if (t - windowStart >= 60_000) {
      if (skipped > 0) options.log?.warn({ notAudited: skipped, perMinute }, `${skipped} more refused or failed admin calls in the last minute were not audited (rate limit ${perMinute}/min)`);
      windowStart = t;
      written = 0;
      skipped = 0;
    }
    if (written >= perMinute) {
      skipped++;
      stats.skipped++;
      return;
    }
    written++;
    stats.audited++;
    const refused = failure.principal === undefined || failure.error.code === 'permission_denied' || failure.error.code === 'unauthenticated';
    const action = `${refused ? 'refused' : 'failed'}:${failure.method.slice(failure.method.lastIndexOf('/') + 1)}`;
    const principal = failure.principal?.id ?? '(unauthenticated)';
    const reason = `${failure.error.code}: ${failure.error.message}`.slice(0, 500);
    options.log?.warn({ action, principal, requestId: failure.requestId, reason }, 'admin call refused or failed');
    store
      .appendAudit({ principal, roles: failure.principal?.roles ?? [], action, target: '', beforeJson: '', afterJson: '', comment: reason, requestId: failure.requestId })
      .catch(options.onAuditError ?? (() => undefined));
  };
  return Object.assign(observer, { stats });
}
