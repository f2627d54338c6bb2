/**
 * Console sessions: the credential a user signed in with stays on the server (the browser holds only
 * an HttpOnly, SameSite=Strict cookie naming the session), and every session has its own CSRF token
 * that each API call must send back in a header.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

export interface ConsoleSession {
  readonly id: string;
  readonly csrfToken: string;
  /** API key or bearer token sent to the gRPC APIs; undefined in local mode. Never sent to the browser. */
  readonly credential: string | undefined;
  /** Who signed in, for display ("local" in local mode). */
  readonly principal: string;
  readonly roles: readonly string[];
  readonly createdUnixMs: number;
  lastSeenUnixMs: number;
}

export interface SessionStoreOptions {
  /** A session unused this long ends. @default 3600000 (1 h) */
  idleMs?: number;
  /** A session ends this long after sign-in, used or not. @default 43200000 (12 h) */
  maxAgeMs?: number;
  /** Oldest sessions are dropped past this many. @default 1000 */
  maxSessions?: number;
  now?: () => number;
}

const token = () => randomBytes(32).toString('base64url');

/** Compares two tokens in constant time (a CSRF token must not be guessable byte by byte). */
export function sameToken(a: string | undefined, b: string): boolean {
  if (!a) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class SessionStore {
  private readonly sessions = new Map<string, ConsoleSession>();
  private readonly idleMs: number;
  private readonly maxAgeMs: number;
  private readonly maxSessions: number;
  private readonly now: () => number;

  constructor(options: SessionStoreOptions = {}) {
    this.idleMs = options.idleMs ?? 3_600_000;
    this.maxAgeMs = options.maxAgeMs ?? 43_200_000;
    this.maxSessions = options.maxSessions ?? 1000;
    this.now = options.now ?? Date.now;
  }

  create(credential: string | undefined, principal: string, roles: readonly string[]): ConsoleSession {
    const at = this.now();
    const session: ConsoleSession = { id: token(), csrfToken: token(), credential, principal, roles, createdUnixMs: at, lastSeenUnixMs: at };
    this.sessions.set(session.id, session);
    // Map order is insertion order: the first key is the oldest session.
    while (this.sessions.size > this.maxSessions) this.sessions.delete(this.sessions.keys().next().value!);
    return session;
  }

  /** The live session of `id`, touched; undefined when unknown or expired (then it is forgotten). */
  get(id: string | undefined): ConsoleSession | undefined {
    if (!id) return undefined;
    const s = this.sessions.get(id);
    if (!s) return undefined;
    const at = this.now();
    if (at - s.lastSeenUnixMs > this.idleMs || at - s.createdUnixMs > this.maxAgeMs) {
      this.sessions.delete(id);
      return undefined;
    }
    s.lastSeenUnixMs = at;
    return s;
  }

  delete(id: string | undefined): void {
    if (id) this.sessions.delete(id);
  }

  get size(): number {
    return this.sessions.size;
  }
}
