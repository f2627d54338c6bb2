/**
 * NATS credentials of a service: user and password, a token, a `.creds` file (JWT + nkey seed) or
 * an nkey seed — from options or from the environment, so every app and test picks them up the
 * same way.
 *
 * | variable | meaning |
 * |---|---|
 * | `NATS_USER` + `NATS_PASSWORD` | a user of the server's `authorization { users = [...] }` |
 * | `NATS_TOKEN` | a token (`authorization { token: ... }`) |
 * | `NATS_CREDS` | path of a `.creds` file (decentralised auth, JWT + seed) |
 * | `NATS_NKEY_SEED` | an nkey seed (`SU...`), or `NATS_NKEY_SEED_FILE`, a file holding one |
 */
import { type Authenticator, credsAuthenticator, nkeyAuthenticator, tokenAuthenticator, usernamePasswordAuthenticator } from '@nats-io/nats-core';
import { readFileSync } from 'node:fs';

import { BusError } from './errors';

/** One way to authenticate to NATS. */
export type NatsCredentials =
  | { user: string; password: string }
  | { token: string }
  | { credsFile: string }
  | { nkeySeed: string };

/**
 * Credentials from the environment (see the module comment), or undefined when none are set.
 * @throws BusError `invalid_argument` for NATS_USER without NATS_PASSWORD (or the reverse)
 */
export function natsCredentialsFromEnv(env: Record<string, string | undefined> = process.env): NatsCredentials | undefined {
  const get = (k: string) => (env[k]?.trim() ? env[k]!.trim() : undefined);
  const user = get('NATS_USER');
  const password = env['NATS_PASSWORD'] ?? '';
  if (user || password) {
    if (!user || !password) throw new BusError('invalid_argument', 'NATS_USER and NATS_PASSWORD must be set together.');
    return { user, password };
  }
  if (get('NATS_TOKEN')) return { token: get('NATS_TOKEN')! };
  if (get('NATS_CREDS')) return { credsFile: get('NATS_CREDS')! };
  if (get('NATS_NKEY_SEED')) return { nkeySeed: get('NATS_NKEY_SEED')! };
  if (get('NATS_NKEY_SEED_FILE')) return { nkeySeed: readFileSync(get('NATS_NKEY_SEED_FILE')!, 'utf8').trim() };
  return undefined;
}

/** The NATS.js authenticator for `creds`. Files are read on each (re)connect, so a rotated file is picked up. */
export function natsAuthenticator(creds: NatsCredentials): Authenticator {
  if ('user' in creds) return usernamePasswordAuthenticator(creds.user, creds.password);
  if ('token' in creds) return tokenAuthenticator(creds.token);
  if ('credsFile' in creds) return credsAuthenticator(() => readFileSync(creds.credsFile));
  return nkeyAuthenticator(new TextEncoder().encode(creds.nkeySeed));
}
