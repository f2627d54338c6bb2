/**
 * Refuses to send a credential in plaintext off this machine: an API key or JWT read on the
 * network path can be replayed by whoever read it. Loopback stays allowed (the one-process mode,
 * port-forwards, sidecars).
 */
import { isIP } from 'node:net';

import { AgentKitError } from './errors';

/** The host of a grpc-js target (`host:port`, `[v6]:port`, `dns:///host:port`, `ipv4:…`); undefined for `unix:` sockets. */
export function targetHost(address: string): string | undefined {
  let rest = address.trim();
  if (/^unix(-abstract)?:/i.test(rest)) return undefined;
  rest = rest.replace(/^dns:(\/\/[^/]*\/)?/i, '').replace(/^ipv[46]:/i, '');
  rest = rest.split(',')[0]!.trim(); // ipv4:a:1,b:2 lists several: all are the same kind here
  if (rest.startsWith('[')) return rest.slice(1, rest.indexOf(']') > 0 ? rest.indexOf(']') : undefined);
  // One colon: host:port. More: a bare IPv6 address.
  return rest.indexOf(':') === rest.lastIndexOf(':') ? rest.split(':')[0] : rest;
}

/** True for `localhost`, 127.0.0.0/8 and ::1 (and unix sockets, which have no host). */
export function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return true;
  const h = host.toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(h) || h.startsWith('::ffff:127.');
  return false;
}

/**
 * @throws AgentKitError invalid_options when `token` would travel in plaintext to a host other than
 * this machine and `allowPlaintextToken` is off.
 */
export function assertTokenTransport(address: string, c: { token?: string; secure: boolean; allowPlaintextToken?: boolean }): void {
  if (!c.token || c.secure || c.allowPlaintextToken) return;
  const host = targetHost(address);
  if (isLoopbackHost(host)) return;
  throw new AgentKitError(
    'invalid_options',
    `Refusing to send the credential (token / TOOLHUB_TOKEN) in plaintext to ${host}: anyone on the network path could read and reuse it. ` +
      'Turn on TLS (tls: true, or tls: { caFile } for a private CA; CLI: --tls or --ca <file>), or, only where the network is protected ' +
      'otherwise (a service mesh with mTLS, a VPN), set allowPlaintextToken: true (TOOLHUB_ALLOW_PLAINTEXT_TOKEN=1).',
  );
}
