/**
 * Static API keys, stored hashed. The key file (or a directory of them: a mounted Kubernetes
 * Secret) lists `{ name, sha256, roles, revoked? }`; the store re-reads it when it changes, so keys
 * rotate and revoke without a restart.
 *
 * Why SHA-256 and not scrypt: API keys are long random tokens (≥ 128 bits), so a fast hash cannot be
 * brute-forced, and every call checks a key (scrypt would cost ~50 ms per call). Lookup is by the
 * digest, so comparison time says nothing about the key.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { AuthConfigError, unauthenticated } from './errors';
import { type FileContent, PolledFile, type PolledFileOptions } from './polled-file';
import { isRole, type Principal, type Role } from './principal';

/** One entry of the key file. */
export interface ApiKeyEntry {
  /** Stable name; the principal is `key:<name>`. */
  name: string;
  /** Hex SHA-256 of the key. */
  sha256: string;
  roles: Role[];
  /** A revoked key is refused with a message saying so. @default false */
  revoked?: boolean;
}

/** SHA-256 hex of an API key, as the key file stores it. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

const KEY_FIELDS = new Set(['name', 'sha256', 'roles', 'revoked']);

/**
 * Parses one key file strictly: an unknown field (a misspelt `revokd`) or a wrong type (`"revoked": "true"`)
 * refuses the whole file, because reading such an entry leniently would grant what the operator meant to take away.
 */
function parseEntries(text: string, source: string): ApiKeyEntry[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new AuthConfigError('bad_key_file', `${source} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  const list = Array.isArray(doc) ? doc : (doc as { keys?: unknown })?.keys;
  if (!Array.isArray(list)) throw new AuthConfigError('bad_key_file', `${source} must hold {"keys": [{"name", "sha256", "roles"}]}`);
  return list.map((raw: unknown, i) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new AuthConfigError('bad_key_file', `${source} keys[${i}] must be an object {"name", "sha256", "roles", "revoked"?}`);
    const e = raw as Partial<ApiKeyEntry>;
    const where = `${source} keys[${i}]${typeof e.name === 'string' ? ` (${JSON.stringify(e.name.slice(0, 128))})` : ''}`;
    const unknown = Object.keys(raw).find((k) => !KEY_FIELDS.has(k));
    if (unknown !== undefined) throw new AuthConfigError('bad_key_file', `${where} has an unknown field ${JSON.stringify(unknown)}; an entry holds only name, sha256, roles and revoked`);
    if (typeof e.name !== 'string' || !/^[A-Za-z0-9._@-]{1,128}$/.test(e.name)) throw new AuthConfigError('bad_key_file', `${where}.name must be 1-128 characters of A-Z a-z 0-9 . _ @ -`);
    if (typeof e.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(e.sha256)) throw new AuthConfigError('bad_key_file', `${where}.sha256 must be the 64-character lowercase hex SHA-256 of the key (printf %s "$KEY" | sha256sum)`);
    if (!Array.isArray(e.roles) || e.roles.length === 0 || !e.roles.every(isRole)) throw new AuthConfigError('bad_key_file', `${where}.roles must list one or more of agent, operator, admin`);
    if (e.revoked !== undefined && typeof e.revoked !== 'boolean') throw new AuthConfigError('bad_key_file', `${where}.revoked must be true or false (a JSON boolean, not ${JSON.stringify(e.revoked)})`);
    return { name: e.name, sha256: e.sha256, roles: e.roles, revoked: e.revoked === true };
  });
}

/** A principal the configuration names (API keys, mTLS subjects), as operators may see it. */
export interface KnownPrincipal {
  id: string;
  roles: Role[];
  method: 'api_key' | 'mtls';
  revoked: boolean;
}

/** Reads a key file, or every `*.json` file of a directory (a mounted Secret: `..data` entries skipped). */
function readSource(path: string): FileContent<ApiKeyEntry[]> {
  const st = statSync(path);
  const files = st.isDirectory()
    ? readdirSync(path)
        .filter((f) => f.endsWith('.json') && !f.startsWith('.'))
        .sort()
        .map((f) => join(path, f))
    : [path];
  let text = '';
  const entries: ApiKeyEntry[] = [];
  // A key listed twice (say revoked once, live once) has no safe reading: refuse rather than pick one.
  const seen = new Map<string, string>();
  for (const f of files) {
    const t = readFileSync(f, 'utf8');
    text += `${f}\n${t}\n`;
    parseEntries(t, f).forEach((e, i) => {
      const where = `${f} keys[${i}] (${JSON.stringify(e.name)})`;
      const first = seen.get(e.sha256);
      if (first) throw new AuthConfigError('bad_key_file', `${where}.sha256 is the same key as ${first}; list each key once (remove one, or give the second its own key)`);
      seen.set(e.sha256, where);
      entries.push(e);
    });
  }
  return { text, value: entries };
}

export interface ApiKeyStoreOptions extends PolledFileOptions {
  /** Told after a reload changed the keys (a failed one goes to `onReloadError`; the previous keys stay). @default no-op */
  onReload?: (keys: number) => void;
}

/** API keys from a file or Secret directory, re-read on change. Create with {@link ApiKeyStore.load}. */
export class ApiKeyStore {
  private byHash = new Map<string, ApiKeyEntry>();
  private file: PolledFile<ApiKeyEntry[]> | undefined;

  private constructor(
    readonly path: string,
    private readonly options: ApiKeyStoreOptions,
  ) {}

  /**
   * Loads `path` and starts watching it.
   * @throws AuthConfigError when the file is missing or malformed (a bad file at start is fatal; later, the old keys stay).
   */
  static load(path: string, options: ApiKeyStoreOptions = {}): ApiKeyStore {
    const store = new ApiKeyStore(path, options);
    let src: FileContent<ApiKeyEntry[]>;
    try {
      src = readSource(path);
    } catch (err) {
      if (err instanceof AuthConfigError) throw err;
      throw new AuthConfigError('bad_key_file', `cannot read API keys from ${path}: ${(err as Error).message}`, { cause: err });
    }
    store.apply(src.value);
    store.file = new PolledFile(
      () => readSource(path),
      (entries) => {
        store.apply(entries);
        options.onReload?.(store.byHash.size);
      },
      src.text,
      options,
    );
    return store;
  }

  /** Re-reads the file now; returns true when the keys changed. A bad file keeps the old keys. */
  reload(): boolean {
    return this.file?.reload() ?? false;
  }

  get size(): number {
    return this.byHash.size;
  }

  /**
   * The principal of `key`.
   * @throws ToolHubError unauthenticated for an unknown or revoked key
   */
  authenticate(key: string): Principal {
    const entry = this.byHash.get(hashApiKey(key));
    if (!entry) throw unauthenticated('The API key is not valid. Send a current key in the authorization header ("Bearer <key>") or x-api-key.');
    if (entry.revoked) throw unauthenticated(`The API key "${entry.name}" was revoked. Ask an operator for a new key.`);
    return { id: `key:${entry.name}`, roles: entry.roles, method: 'api_key' };
  }

  /** Every key's principal (`key:<name>`), roles and whether it is revoked: no hashes, for operators. */
  list(): KnownPrincipal[] {
    return [...this.byHash.values()].map((e) => ({ id: `key:${e.name}`, roles: [...e.roles], method: 'api_key' as const, revoked: Boolean(e.revoked) })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  close(): void {
    this.file?.close();
  }

  private apply(entries: readonly ApiKeyEntry[]): void {
    const next = new Map<string, ApiKeyEntry>();
    for (const e of entries) next.set(e.sha256, e);
    this.byHash = next;
  }
}
