/**
 * Binds the provider a catalog announcement or heartbeat speaks for to the subject it arrived on.
 * NATS permissions let an adapter's user publish only on its own provider's subjects
 * (`…registry.sync.<provider>`, `…discovery.heartbeat.<provider>`), so a reader that checks the
 * payload's provider against the subject's token trusts NATS identity, not the payload. Legacy
 * shared subjects carry no token: readers still accept them (deployments without NATS users) and log.
 */
import { AdapterHealthResponse } from './gen/toolhub/v1/adapter';
import { ADAPTER_HEARTBEAT_SUBJECT, registrySubject, subjectProvider } from './subjects';

/** How a message's payload provider relates to its subject. */
export type ProviderBinding =
  /** The subject names the payload's provider. */
  | { kind: 'bound' }
  /** A legacy shared subject: no provider in it to check against. */
  | { kind: 'legacy' }
  /** The subject names another provider than the payload: refuse it. */
  | { kind: 'mismatch'; subjectProvider: string };

/** Checks `payloadProvider` against the provider token of `subject` below `base`. */
export function bindProvider(subject: string, base: string, payloadProvider: string): ProviderBinding {
  const fromSubject = subjectProvider(subject, base);
  if (fromSubject === undefined) return { kind: 'legacy' };
  return fromSubject === payloadProvider ? { kind: 'bound' } : { kind: 'mismatch', subjectProvider: fromSubject };
}

/** The same check for a catalog announcement (inline `sync` or paged `catalog`). */
export function bindAnnouncementProvider(subject: string, payloadProvider: string): ProviderBinding {
  const base = subject.startsWith(registrySubject('catalog')) ? registrySubject('catalog') : registrySubject('sync');
  return bindProvider(subject, base, payloadProvider);
}

/** A decoded heartbeat with how its provider is bound to its subject. */
export type ReadHeartbeat = { health: AdapterHealthResponse; binding: ProviderBinding } | undefined;

/** Decodes a heartbeat and binds its provider to its subject; undefined when it is malformed. */
export function readHeartbeat(subject: string, data: Uint8Array): ReadHeartbeat {
  let health: AdapterHealthResponse;
  try {
    health = AdapterHealthResponse.decode(data);
  } catch {
    return undefined;
  }
  return { health, binding: bindProvider(subject, ADAPTER_HEARTBEAT_SUBJECT, health.provider) };
}

/** What is announced for a provider: a catalog or a heartbeat. */
export type BoundMessageKind = 'catalog' | 'heartbeat';

/** The logger the guard writes to (pino-compatible). */
export interface ProviderBindingLogger {
  warn(obj: object, msg?: string): void;
}

/** Most distinct senders remembered for log throttling (a flood of forged names cannot grow memory). */
const MAX_REMEMBERED = 1000;
/** A repeated mismatch of the same pair is logged again after this long. */
const MISMATCH_LOG_INTERVAL_MS = 60_000;

/**
 * Decides whether a reader takes a catalog announcement or heartbeat, counts what it refuses and
 * logs it: a mismatch (an adapter speaking for another provider) at most once a minute per
 * subject/payload pair, a legacy shared subject once per provider and kind.
 */
export class ProviderBindingGuard {
  /** Messages refused because the subject's provider is not the payload's, by kind. */
  readonly refused: Record<BoundMessageKind, number> = { catalog: 0, heartbeat: 0 };
  /** Messages taken from a legacy shared subject (no provider to check), by kind. */
  readonly legacy: Record<BoundMessageKind, number> = { catalog: 0, heartbeat: 0 };
  private readonly legacyLogged = new Set<string>();
  private readonly mismatchLoggedAt = new Map<string, number>();

  constructor(private readonly log: ProviderBindingLogger) {}

  /** True when the message may be applied; false (counted, logged) for a mismatch. */
  accept(kind: BoundMessageKind, binding: ProviderBinding, payloadProvider: string, subject: string, now = Date.now()): boolean {
    if (binding.kind === 'bound') return true;
    const provider = payloadProvider.slice(0, 80);
    if (binding.kind === 'legacy') {
      this.legacy[kind]++;
      const key = `${kind}\u0000${provider}`;
      if (!this.legacyLogged.has(key) && this.legacyLogged.size < MAX_REMEMBERED) {
        this.legacyLogged.add(key);
        this.log.warn({ kind, provider, subject }, `${kind} for ${provider} on the legacy shared subject ${subject}: accepted, but its provider is not bound to the sender; update the adapter (its SDK publishes on the per-provider subject), and NATS users with the shipped permissions cannot publish there`);
      }
      return true;
    }
    this.refused[kind]++;
    const key = `${kind}\u0000${binding.subjectProvider}\u0000${provider}`;
    const last = this.mismatchLoggedAt.get(key);
    if (last === undefined || now - last >= MISMATCH_LOG_INTERVAL_MS) {
      if (last !== undefined || this.mismatchLoggedAt.size < MAX_REMEMBERED) this.mismatchLoggedAt.set(key, now);
      this.log.warn({ kind, subject, subjectProvider: binding.subjectProvider, payloadProvider: provider, refusedTotal: this.refused[kind] }, `${kind} refused: published on ${subject} (provider ${binding.subjectProvider}) but it speaks for provider ${JSON.stringify(provider)}; an adapter may speak only for its own provider`);
    }
    return false;
  }
}
