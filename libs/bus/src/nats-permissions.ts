/**
 * The nats-server `authorization` block for ToolHub: one user per service with subject
 * permissions, so an adapter can serve only its own provider's subjects (and read only its own
 * replies), announce catalogs and heartbeats only for its own provider, and only dispatchers
 * publish `tool.called` events.
 *
 * Each service connects with `inboxPrefix` `_INBOX_<user>` (NATS_INBOX_PREFIX, see
 * nats-credentials.ts): adapters may subscribe to their own inboxes only, so one cannot read the
 * replies sent to another.
 */
import { SUBJECT_ROOT } from '@toolhub/contracts';

/** What a NATS user is. */
export type NatsServiceRole = 'dispatcher' | 'registry' | 'adapter' | 'admin';

export interface NatsServiceUser {
  user: string;
  /** The password, or `$VAR` to have nats-server read it from its environment. */
  password: string;
  role: NatsServiceRole;
  /** For adapters: the one provider it may serve. */
  provider?: string;
}

interface Permissions {
  publish: { allow: string[]; deny?: string[] };
  subscribe: { allow: string[]; deny?: string[] };
  allow_responses?: boolean;
}

const R = SUBJECT_ROOT;
const CALLED = `${R}.events.tool.called.>`;

/** The inbox prefix of a user's requests (its replies arrive below it). */
export function inboxPrefixOf(user: string): string {
  return `_INBOX_${user.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** Subject permissions of one service user. */
export function natsPermissions(u: NatsServiceUser): Permissions {
  const inbox = `${inboxPrefixOf(u.user)}.>`;
  switch (u.role) {
    case 'admin':
      return { publish: { allow: ['>'] }, subscribe: { allow: ['>'] } };
    case 'dispatcher':
      // Everything ToolHub: it calls every adapter, publishes tool.called, uses JetStream, and
      // works the async-run queue (acknowledging its messages: $JS.ACK). It answers requests of
      // other dispatchers only (runs.owner), whose replies go to the dispatchers' shared inbox
      // prefix, so it may still not publish into other clients' inboxes.
      return { publish: { allow: [`${R}.>`, '$JS.API.>', '$JS.ACK.>', inbox] }, subscribe: { allow: [`${R}.>`, '_INBOX.>', inbox] } };
    case 'registry':
      return {
        publish: { allow: [`${R}.>`, '$JS.API.>', '$JS.ACK.>', inbox], deny: [CALLED] },
        subscribe: { allow: [`${R}.>`, '_INBOX.>', inbox] },
        // It answers requests (info, search, preload, status) from dispatchers, whose replies go
        // to `_INBOX_<dispatcher user>.…`: one reply per request received, to any requester.
        allow_responses: true,
      };
    case 'adapter': {
      const p = u.provider;
      if (!p || !/^[a-z][a-z0-9_-]*$/.test(p)) throw new Error(`NATS user ${u.user}: an adapter user needs its provider name`);
      return {
        publish: {
          // Heartbeats and catalog announcements only on its own provider's subjects: the registry
          // and dispatchers check the payload's provider against that token, so no adapter can
          // speak for another (the shared legacy subjects are not allowed). Progress of a run goes
          // below its own provider too, so no adapter can report progress into another's calls.
          allow: ['$JS.API.INFO', `${R}.discovery.heartbeat.${p}`, `${R}.ack.>`, `${R}.progress.${p}.>`, `${R}.registry.sync.${p}`, `${R}.registry.catalog.${p}`, `${R}.adapter.${p}.>`, `${R}.events.catalog.changed.${p}`, `${R}.events.tool.invalidated.${p}`, inbox],
          deny: [CALLED],
        },
        subscribe: { allow: [`${R}.adapter.${p}.>`, `${R}.replica.${p}.>`, `${R}.discovery.ping`, `${R}.registry.resync`, inbox] },
        // $JS.API.INFO: connecting checks JetStream is on; adapters connect with ensureStream false.
        // Replies to requests it serves go to the requester's inbox.
        allow_responses: true,
      };
    }
  }
}

const quote = (v: string) => (v.startsWith('$') ? v : JSON.stringify(v));
const list = (xs: string[]) => `[${xs.map((x) => JSON.stringify(x)).join(', ')}]`;

/** One user's line of the `users = [...]` list (as in deploy/nats/toolhub-auth.conf). */
export function natsUserEntry(u: NatsServiceUser): string {
  const p = natsPermissions(u);
  const side = (s: { allow: string[]; deny?: string[] }) => `{ allow: ${list(s.allow)}${s.deny ? `, deny: ${list(s.deny)}` : ''} }`;
  return `    { user: ${JSON.stringify(u.user)}, password: ${quote(u.password)}, permissions: { publish: ${side(p.publish)}, subscribe: ${side(p.subscribe)}${p.allow_responses ? ', allow_responses: true' : ''} } }`;
}

/** The `authorization { users = [...] }` block for nats-server's config file. */
export function natsAuthorizationConfig(users: readonly NatsServiceUser[]): string {
  return `authorization {\n  users = [\n${users.map(natsUserEntry).join(',\n')}\n  ]\n}\n`;
}
