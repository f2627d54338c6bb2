/**
 * Every NATS subject ToolHub uses, in one place. Versioned (`toolhub.v1.…`) so a v2 can run beside v1.
 * Provider names are validated by {@link assertProviderName} before they reach a subject, so a
 * provider can never inject `.`, `*` or `>` into the subject space.
 */
import { contentHash } from './canonical';
import { assertProviderName } from './names';

/** Root of every subject of this contract version. */
export const SUBJECT_ROOT = 'toolhub.v1';

/** The three adapter operations plus health. */
export type AdapterOperation = 'list' | 'info' | 'run' | 'health';

/** Queue group shared by every replica of one provider's adapter. */
export function adapterQueueGroup(provider: string): string {
  assertProviderName(provider);
  return `toolhub-adapter-${provider}`;
}

/** `toolhub.v1.adapter.<provider>.<op>`: request/reply served by the provider's adapter. */
export function adapterSubject(provider: string, op: AdapterOperation): string {
  assertProviderName(provider);
  return `${SUBJECT_ROOT}.adapter.${provider}.${op}`;
}

/**
 * `toolhub.v1.adapter.<provider>.cancel`: fan-out (no queue group) to every replica of a provider;
 * carries an AdapterRunCancel naming the run whose caller gave up.
 */
export function adapterCancelSubject(provider: string): string {
  assertProviderName(provider);
  return `${SUBJECT_ROOT}.adapter.${provider}.cancel`;
}

/**
 * `toolhub.v1.replica.<provider>.<instance>`: request/reply answered by one adapter replica only.
 * A dispatcher holding calls on that replica asks it now and then: NATS answers "no responders" at
 * once when the replica's connection is gone, which is how a dead replica is noticed within a second.
 */
export function replicaSubject(provider: string, instanceId: string): string {
  assertProviderName(provider);
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(instanceId)) throw new Error(`replicaSubject: instance id ${JSON.stringify(instanceId)} is not a subject token`);
  return `${SUBJECT_ROOT}.replica.${provider}.${instanceId}`;
}

/**
 * `toolhub.v1.adapter.<provider>.catalog.<instance>`: request/reply served by ONE replica (no
 * queue group): the registry pulls the pages of a paged catalog from the replica that announced
 * it. An instance id that is not a plain subject token is replaced by a hash of it (both sides
 * compute the same one), so no id can inject `.`, `*` or `>`.
 */
export function adapterCatalogSubject(provider: string, instanceId: string): string {
  assertProviderName(provider);
  const token = /^[A-Za-z0-9_-]{1,64}$/.test(instanceId) ? instanceId : `h${contentHash(instanceId, 32)}`;
  return `${SUBJECT_ROOT}.adapter.${provider}.catalog.${token}`;
}

/**
 * `toolhub.v1.adapter.<provider>.instance.<instance>.<op>`: list, info and run served by ONE
 * replica (no queue group). A dispatcher uses it when some live replicas of the provider are
 * refused (another contract major): calls then go only to the replicas it accepted, never through
 * the queue group they share with the refused ones. Instance ids are tokenised as for
 * {@link adapterCatalogSubject}.
 */
export function adapterInstanceSubject(provider: string, instanceId: string, op: AdapterOperation): string {
  assertProviderName(provider);
  const token = /^[A-Za-z0-9_-]{1,64}$/.test(instanceId) ? instanceId : `h${contentHash(instanceId, 32)}`;
  return `${SUBJECT_ROOT}.adapter.${provider}.instance.${token}.${op}`;
}

/** Wildcard over every adapter's operations, for discovery. */
export const ADAPTER_WILDCARD = `${SUBJECT_ROOT}.adapter.*.*`;

/** Broadcast asking every live adapter replica to publish a heartbeat now (e.g. a dispatcher starting). */
export const ADAPTER_DISCOVERY_SUBJECT = `${SUBJECT_ROOT}.discovery.ping`;

/**
 * The shared heartbeat subject of adapters built before per-provider subjects. Nothing binds its
 * payload's provider to the sender, so shipped NATS permissions let no adapter publish here;
 * dispatchers and registries still listen (deployments without NATS users) and log each sender.
 * New code publishes on {@link adapterHeartbeatSubject}.
 */
export const ADAPTER_HEARTBEAT_SUBJECT = `${SUBJECT_ROOT}.discovery.heartbeat`;

/**
 * `toolhub.v1.discovery.heartbeat.<provider>`: each adapter replica publishes an
 * AdapterHealthResponse here periodically and when pinged. The provider is a subject token so NATS
 * permissions can let an adapter's user publish for its own provider only; readers refuse a
 * heartbeat whose payload names another provider than its subject.
 */
export function adapterHeartbeatSubject(provider: string): string {
  assertProviderName(provider);
  return `${ADAPTER_HEARTBEAT_SUBJECT}.${provider}`;
}

/** Every provider's heartbeats. */
export const ADAPTER_HEARTBEAT_WILDCARD = `${ADAPTER_HEARTBEAT_SUBJECT}.*`;

/**
 * Registry operations on the bus: `sync` (CatalogAnnouncement, published by adapters), `resync`
 * (broadcast by a starting registry: every adapter replica announces again), and request/reply
 * `search` (SearchTools), `preload` (GetPreloadSet), `info` (GetToolRequest → GetToolResponse),
 * `catalog` (a paged CatalogAnnouncement: the registry pulls its pages from the adapter) and
 * `status` (GetCatalogStatusRequest → GetCatalogStatusResponse: sync progress and quarantine).
 */
export type RegistryOperation = 'sync' | 'resync' | 'search' | 'preload' | 'info' | 'catalog' | 'status';

/** `toolhub.v1.registry.<op>`. `sync` and `catalog` without a provider are the legacy shared subjects (see {@link catalogSubject}). */
export function registrySubject(op: RegistryOperation): string {
  return `${SUBJECT_ROOT}.registry.${op}`;
}

/** How a catalog is announced: `sync` carries it inline, `catalog` announces a paged one. */
export type CatalogAnnouncementKind = 'sync' | 'catalog';

/**
 * `toolhub.v1.registry.<sync|catalog>.<provider>`: where an adapter of `provider` announces its
 * catalog. The provider is a subject token so NATS permissions can bind it to the adapter's user;
 * the registry refuses an announcement whose payload names another provider than its subject.
 */
export function catalogSubject(kind: CatalogAnnouncementKind, provider: string): string {
  assertProviderName(provider);
  return `${SUBJECT_ROOT}.registry.${kind}.${provider}`;
}

/** Every provider's announcements of one kind. */
export function catalogWildcard(kind: CatalogAnnouncementKind): string {
  return `${SUBJECT_ROOT}.registry.${kind}.*`;
}

/**
 * The provider a per-provider subject names as its last token (`…sync.<provider>`,
 * `…heartbeat.<provider>`), or undefined for a legacy shared subject (`base` itself).
 */
export function subjectProvider(subject: string, base: string): string | undefined {
  return subject.startsWith(`${base}.`) ? subject.slice(base.length + 1) : undefined;
}

/**
 * Learning from use shared by registry replicas: `run` (a LearningRun the consuming replica could
 * not resolve, for the replica that answered its search) and `learned` (a LearningObserved, for
 * every other replica to add). Fan-out on core NATS (no queue group, not durable: what a replica
 * misses it loads from the store at its next start). Outside `toolhub.v1.registry.>` on purpose:
 * adapters publish there (their own provider's announcements), and must not be able to teach the search.
 */
export type LearningSubjectKind = 'run' | 'learned';

/** `toolhub.v1.learning.<kind>`. */
export function learningSubject(kind: LearningSubjectKind): string {
  return `${SUBJECT_ROOT}.learning.${kind}`;
}

/**
 * Durable event kinds on the JetStream stream. `tool.called.batch` carries several `tool.called`
 * events of one provider in one message, `tool.called.grouped` events stamped with a claim group
 * (see tool-called-messages.ts); `tool.called.*` matches neither, so a consumer of single events
 * never misreads one.
 */
export type EventKind = 'tool.called' | 'tool.called.batch' | 'tool.called.grouped' | 'tool.invalidated' | 'catalog.changed';

/** Name of the JetStream stream that holds every ToolHub event. */
export const EVENTS_STREAM = 'TOOLHUB_EVENTS';

/** All event subjects (the stream's subject filter). */
export const EVENTS_WILDCARD = `${SUBJECT_ROOT}.events.>`;

/** `toolhub.v1.events.<kind>.<provider>`. */
export function eventSubject(kind: EventKind, provider: string): string {
  assertProviderName(provider);
  return `${SUBJECT_ROOT}.events.${kind}.${provider}`;
}

/** Subscription filter for one kind of event across providers. */
export function eventWildcard(kind: EventKind): string {
  return `${SUBJECT_ROOT}.events.${kind}.*`;
}

/** Reads the kind and provider back out of an event subject; undefined if it is not one. */
export function parseEventSubject(subject: string): { kind: EventKind; provider: string } | undefined {
  const prefix = `${SUBJECT_ROOT}.events.`;
  if (!subject.startsWith(prefix)) return undefined;
  const rest = subject.slice(prefix.length);
  for (const kind of ['tool.called', 'tool.called.batch', 'tool.called.grouped', 'tool.invalidated', 'catalog.changed'] as const) {
    if (rest.startsWith(`${kind}.`)) {
      const provider = rest.slice(kind.length + 1);
      if (provider && !provider.includes('.')) return { kind, provider };
    }
  }
  return undefined;
}

/** Run acknowledgements for one dispatcher instance: `toolhub.v1.ack.<dispatcher>.<call>`. */
export function ackSubject(dispatcherId: string, callId?: string): string {
  return `${SUBJECT_ROOT}.ack.${dispatcherId}.${callId ?? '*'}`;
}

/**
 * `toolhub.v1.progress.<provider>.<dispatcher>.<call>`: where an adapter replica publishes the
 * RunToolProgress updates of one call whose request asked for them (header
 * toolhub-progress-subject). The provider is a subject token so NATS permissions let an adapter
 * publish progress for its own provider's calls only. Without `callId`, the dispatcher's wildcard.
 */
export function progressSubject(provider: string, dispatcherId: string, callId?: string): string {
  assertProviderName(provider);
  return `${progressPrefix(provider)}${dispatcherId}.${callId ?? '*'}`;
}

/** Every progress subject of one dispatcher, all providers. */
export function progressWildcard(dispatcherId: string): string {
  return `${SUBJECT_ROOT}.progress.*.${dispatcherId}.*`;
}

/** `toolhub.v1.progress.<provider>.`: an adapter publishes progress only below it. */
export function progressPrefix(provider: string): string {
  return `${SUBJECT_ROOT}.progress.${provider}.`;
}
