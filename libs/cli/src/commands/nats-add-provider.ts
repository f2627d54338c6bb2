/**
 * `toolhub nats add-provider <provider>`: issues the NATS user of a new adapter team's provider —
 * the `users` entry for nats-server (permissions from natsPermissions in @toolhub/bus, the same as
 * the shipped adapter_* users: serve only this provider's subjects, read only its own inbox, never
 * publish tool.called), a fresh password, and the environment the adapter connects with.
 */
import { inboxPrefixOf, natsUserEntry } from '@toolhub/bus';
import { PROVIDER_NAME_PATTERN } from '@toolhub/contracts';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

import type { CommandContext } from '../context';
import { CliUsageError } from '../errors';
import { EXIT_CODES, type ExitCode } from '../exit-codes';

/** What nats-server reads back unchanged as the value of a password variable. */
const NATS_SAFE_PASSWORD = /^[A-Za-z][A-Za-z0-9_-]*$/;

export interface NatsAddProviderOptions {
  /** NATS user name. @default `adapter_<provider>` */
  user?: string;
  /** Password to set (a letter, then letters, digits, _ or -). @default "p" and 32 random hex digits */
  password?: string;
  /** A nats-server config file with an `authorization { users = [...] }` list to add the user to. */
  conf?: string;
}

/** The provider's user: what nats-server and the adapter each need. */
export interface IssuedProviderUser {
  provider: string;
  user: string;
  inboxPrefix: string;
  /** nats-server reads the password from this variable of its environment. */
  passwordVariable: string;
  password: string;
  /** The line for the `users = [...]` list. */
  entry: string;
  /** Set when --conf was given: the file the entry was added to. */
  conf?: string;
  serverEnv: Record<string, string>;
  adapterEnv: Record<string, string>;
}

/** Builds the user of `provider`. @throws CliUsageError for a bad provider or user name */
export function issueProviderUser(provider: string, options: NatsAddProviderOptions = {}): IssuedProviderUser {
  if (!PROVIDER_NAME_PATTERN.test(provider)) {
    throw new CliUsageError(`Provider name ${JSON.stringify(provider)} must match ${PROVIDER_NAME_PATTERN.source}, e.g. weather.`);
  }
  const user = options.user ?? `adapter_${provider}`;
  if (!/^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(user)) throw new CliUsageError(`--user ${JSON.stringify(user)} must be letters, digits, _ or -, starting with a letter.`);
  if (options.password !== undefined && options.password.length < 12) throw new CliUsageError('--password must be at least 12 characters (or leave it out to get a random one).');
  // nats-server reads `$VARIABLE` by parsing its value as config: "2ab…" fails as a number, "-…" too.
  if (options.password !== undefined && !NATS_SAFE_PASSWORD.test(options.password)) {
    throw new CliUsageError('--password must start with a letter and hold only letters, digits, _ or - (nats-server parses the password variable as a config value: one starting with a digit is read as a number), or leave it out to get a random one.');
  }
  const passwordVariable = `NATS_${user.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_PASSWORD`;
  // A letter first, then hex: no quotes, $ or spaces (pastes into an env file and a shell
  // unchanged), and never read as a number by nats-server (base64url failed that 1 time in ~6).
  const password = options.password ?? `p${randomBytes(16).toString('hex')}`;
  const inboxPrefix = inboxPrefixOf(user);
  return {
    provider,
    user,
    inboxPrefix,
    passwordVariable,
    password,
    entry: natsUserEntry({ user, password: `$${passwordVariable}`, role: 'adapter', provider }),
    serverEnv: { [passwordVariable]: password },
    adapterEnv: { NATS_USER: user, NATS_PASSWORD: password, NATS_INBOX_PREFIX: inboxPrefix },
  };
}

/**
 * Adds `entry` as the last user of the `users = [...]` list in `text`.
 * @throws CliUsageError when there is no such list or the user is in it already
 */
export function addUserToConfig(text: string, user: string, entry: string, file = 'the config'): string {
  if (new RegExp(`user:\\s*"?${user}"?\\s*,`).test(text)) throw new CliUsageError(`${file} already has a user ${JSON.stringify(user)}; remove it first or choose another --user.`);
  const open = /users\s*=\s*\[/.exec(text);
  const close = open ? text.indexOf('\n  ]', open.index) : -1;
  if (!open || close < 0) throw new CliUsageError(`${file} has no "users = [ … ]" list (as in deploy/nats/toolhub-auth.conf, one user per line, closed by "  ]").`);
  const before = text.slice(0, close).replace(/\s*$/, '');
  const empty = before.endsWith('[');
  return `${before}${empty ? '' : ','}\n${entry}${text.slice(close)}`;
}

/** Prints (or adds to --conf) the user and both environments. */
export async function natsAddProviderCommand(ctx: CommandContext, provider: string, options: NatsAddProviderOptions): Promise<ExitCode> {
  const issued = issueProviderUser(provider, options);
  if (options.conf) {
    const file = resolve(process.cwd(), options.conf);
    if (!existsSync(file)) throw new CliUsageError(`--conf ${options.conf}: no such file (give the nats-server config holding the users list, e.g. deploy/nats/toolhub-auth.conf).`);
    writeFileSync(file, addUserToConfig(readFileSync(file, 'utf8'), issued.user, issued.entry, options.conf));
    issued.conf = file;
  }
  if (ctx.out.json) {
    ctx.out.document(issued);
    return EXIT_CODES.ok;
  }
  const env = (vars: Record<string, string>) => Object.entries(vars).map(([k, v]) => `${k}=${v}`);
  ctx.out.line(
    ...(issued.conf
      ? [`# nats-server: user ${issued.user} added to ${issued.conf}`]
      : ['# nats-server: add this user to the users list of deploy/nats/toolhub-auth.conf', issued.entry]),
    "# nats-server's environment (then reload it: nats-server --signal reload, or restart it):",
    ...env(issued.serverEnv),
    `# the adapter's environment (hand these to the team of provider ${provider}, with NATS_URL):`,
    ...env(issued.adapterEnv),
  );
  return EXIT_CODES.ok;
}
