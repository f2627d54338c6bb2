/**
 * The host allowlist of a document: which hosts the adapter may call. Entries are `host`,
 * `host:port`, `*.example.com` (any sub-domain) or bracketed IPv6 literals (`[::1]:8080`).
 */
import { isIP } from 'node:net';

/** One allowlist entry, normalised. */
export interface HostRule {
  /** Lowercase host name or IP literal without brackets; for a wildcard, the suffix after `*.`. */
  readonly host: string;
  /** Only this port when set; any port otherwise. */
  readonly port?: number;
  /** `*.example.com`: matches sub-domains of `host` (not `host` itself). */
  readonly wildcard: boolean;
  /** The entry as written, for messages. */
  readonly text: string;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Parses one allowlist entry.
 * @returns the rule, or a message saying what is wrong with the entry.
 */
export function parseHostRule(entry: string): HostRule | string {
  const text = entry.trim().toLowerCase();
  if (text === '') return 'empty host';
  if (/[/?#@\s]/.test(text) || text.includes('://')) return `${JSON.stringify(entry)} should be a host or host:port, without a scheme, path or credentials`;
  let host = text;
  let port: number | undefined;
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) {
    host = bracketed[1]!;
    if (bracketed[2] !== undefined) port = Number(bracketed[2]);
    if (isIP(host) !== 6) return `${JSON.stringify(entry)} is not a valid IPv6 address`;
  } else if (isIP(text) === 6) {
    return `write IPv6 addresses in brackets, e.g. "[${text}]" or "[${text}]:8080"`;
  } else {
    const m = /^([^:]+)(?::(\d+))?$/.exec(text);
    if (!m) return `${JSON.stringify(entry)} should be a host or host:port`;
    host = m[1]!;
    if (m[2] !== undefined) port = Number(m[2]);
  }
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) return `port of ${JSON.stringify(entry)} must be between 1 and 65535`;
  const wildcard = host.startsWith('*.');
  if (wildcard) host = host.slice(2);
  if (isIP(host) === 0) {
    const labels = host.replace(/\.$/, '').split('.');
    if (host.includes('*') || labels.some((l) => !LABEL.test(l))) return `${JSON.stringify(entry)} is not a valid host name`;
    host = labels.join('.');
  } else if (wildcard) {
    return `${JSON.stringify(entry)}: a wildcard needs a domain name, not an IP address`;
  }
  return { host, port, wildcard, text: entry };
}

/** The host of a URL as compared against rules: lowercase, no brackets, no trailing dot. */
export function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

/** The port a URL connects to (the scheme's default when none is written). */
export function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** The first rule that lets `url` be called, if any. */
export function matchHost(rules: readonly HostRule[], url: URL): HostRule | undefined {
  const host = hostOf(url);
  const port = portOf(url);
  return rules.find((r) => (r.port === undefined || r.port === port) && (r.wildcard ? host.endsWith(`.${r.host}`) : host === r.host));
}

/** `host` or `host:port` of a URL, for messages (never credentials, path or query). */
export function hostLabel(url: URL): string {
  return url.host;
}
