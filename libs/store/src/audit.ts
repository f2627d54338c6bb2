/**
 * The audit log: one immutable document per admin change (who, when, what, before and after),
 * newest first on reading. Append-only: nothing in the store updates or deletes an entry.
 */
import { randomUUID } from 'node:crypto';

import type { BaseDoc, DocCollection, Filter } from './backend';

/** One admin change. */
export interface AuditEntry {
  readonly id: string;
  readonly atUnixMs: number;
  /** The authenticated principal (`key:ops`, `jwt:<iss>#<sub>`, `local`). */
  readonly principal: string;
  readonly roles: readonly string[];
  /** The admin operation, e.g. `SetEnabled`. */
  readonly action: string;
  /** What changed: a tool id, `preload` or `overlays`. */
  readonly target: string;
  /** JSON of the state before and after ('' when there was none). */
  readonly beforeJson: string;
  readonly afterJson: string;
  readonly comment: string;
  readonly requestId: string;
}

/** What {@link RegistryStore.appendAudit} takes; id and time are filled in. */
export type AuditInput = Omit<AuditEntry, 'id' | 'atUnixMs'>;

export interface AuditQuery {
  target?: string;
  principal?: string;
  /** Entries strictly older than this (paging). */
  beforeUnixMs?: number;
  /** @default 100, at most 1000 */
  limit?: number;
}

export interface AuditDoc extends BaseDoc, Omit<AuditEntry, 'id'> {}

/** Largest before/after JSON kept per entry; a huge tool definition is cut with a marker. */
const MAX_STATE_CHARS = 64 * 1024;

function cut(json: string): string {
  return json.length <= MAX_STATE_CHARS ? json : `${json.slice(0, MAX_STATE_CHARS)}… (${json.length - MAX_STATE_CHARS} more characters cut)`;
}

export class AuditLog {
  constructor(
    private readonly docs: DocCollection<AuditDoc>,
    private readonly clock: () => number,
  ) {}

  async append(input: AuditInput): Promise<AuditEntry> {
    const doc: AuditDoc = { ...input, roles: [...input.roles], beforeJson: cut(input.beforeJson), afterJson: cut(input.afterJson), _id: randomUUID(), atUnixMs: this.clock() };
    await this.docs.insert(doc);
    return toEntry(doc);
  }

  async list(query: AuditQuery = {}): Promise<AuditEntry[]> {
    const filter: Filter = {};
    if (query.target) filter['target'] = query.target;
    if (query.principal) filter['principal'] = query.principal;
    if (query.beforeUnixMs) filter['atUnixMs'] = { $lt: query.beforeUnixMs };
    const limit = Math.min(Math.max(query.limit || 100, 1), 1000);
    return (await this.docs.find(filter, { sort: { atUnixMs: -1, _id: -1 }, limit })).map(toEntry);
  }
}

function toEntry(doc: AuditDoc): AuditEntry {
  const { _id, ...rest } = doc;
  return { id: _id, ...rest, roles: [...rest.roles] };
}
