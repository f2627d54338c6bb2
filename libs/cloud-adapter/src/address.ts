/**
 * Where a request may go, by IP address: the last line of defence against server-side request
 * forgery. A host name is resolved and every address it resolves to is classified; the connection
 * itself uses the same check (see `http.ts`), so a name that resolves differently a moment later
 * (DNS rebinding) still cannot reach a refused address.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** How an address is treated. */
export type AddressClass =
  /** Cloud instance metadata endpoints: never reached. */
  | 'metadata'
  /** 169.254/16, fe80::/10: never reached. */
  | 'link-local'
  /** 0.0.0.0/8, ::, multicast, broadcast, reserved: never reached. */
  | 'unspecified'
  /** 127/8, ::1: only through a host listed explicitly in allowedHosts. */
  | 'loopback'
  /** 10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7: only through a host listed explicitly. */
  | 'private'
  | 'public';

const metadata = new BlockList();
metadata.addAddress('169.254.169.254', 'ipv4'); // AWS, GCP, Azure, OpenStack, Oracle, DigitalOcean
metadata.addAddress('169.254.170.2', 'ipv4'); // AWS ECS task metadata
metadata.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud
metadata.addAddress('fd00:ec2::254', 'ipv6'); // AWS IMDS over IPv6

const linkLocal = new BlockList();
linkLocal.addSubnet('169.254.0.0', 16, 'ipv4');
linkLocal.addSubnet('fe80::', 10, 'ipv6');

const unspecified = new BlockList();
unspecified.addSubnet('0.0.0.0', 8, 'ipv4');
unspecified.addSubnet('224.0.0.0', 4, 'ipv4'); // multicast
unspecified.addSubnet('240.0.0.0', 4, 'ipv4'); // reserved, broadcast
unspecified.addAddress('::', 'ipv6');
unspecified.addSubnet('ff00::', 8, 'ipv6'); // multicast

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

const privateNets = new BlockList();
privateNets.addSubnet('10.0.0.0', 8, 'ipv4');
privateNets.addSubnet('172.16.0.0', 12, 'ipv4');
privateNets.addSubnet('192.168.0.0', 16, 'ipv4');
privateNets.addSubnet('100.64.0.0', 10, 'ipv4'); // carrier-grade NAT
privateNets.addSubnet('192.0.0.0', 24, 'ipv4'); // IETF protocol assignments
privateNets.addSubnet('198.18.0.0', 15, 'ipv4'); // benchmarking
privateNets.addSubnet('fc00::', 7, 'ipv6'); // unique local

/** The eight 16-bit groups of an IPv6 address (dotted IPv4 tail included); undefined when malformed. */
function ipv6Groups(address: string): number[] | undefined {
  let a = address;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (tail) {
    const o = tail[1]!.split('.').map(Number);
    a = `${a.slice(0, tail.index)}${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  }
  const [head, rest] = a.split('::') as [string, string | undefined];
  const parse = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  const groups = rest === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/**
 * The IPv4 address an IPv6 address carries, so it is judged as what it reaches: IPv4-mapped
 * (`::ffff:169.254.169.254`, `::ffff:a9fe:a9fe`), IPv4-compatible (`::a9fe:a9fe`) and NAT64
 * (`64:ff9b::a9fe:a9fe`). Other addresses come back as they are (lowercase, no brackets).
 */
export function unmapAddress(address: string): string {
  const a = address.toLowerCase().replace(/^\[|\]$/g, '');
  if (isIP(a) !== 6) return a;
  const g = ipv6Groups(a);
  if (!g) return a;
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  const mapped = zeros(0, 5) && (g[5] === 0xffff || (g[5] === 0 && (g[6] !== 0 || g[7]! > 1)));
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6);
  if (!mapped && !nat64) return a;
  return [g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255].join('.');
}

/** Classifies one IP address (IPv4 or IPv6, mapped addresses unwrapped). Not an IP → 'unspecified'. */
export function classifyAddress(address: string): AddressClass {
  const a = unmapAddress(address);
  const family = isIP(a);
  if (family === 0) return 'unspecified';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (metadata.check(a, type)) return 'metadata';
  if (linkLocal.check(a, type)) return 'link-local';
  if (unspecified.check(a, type)) return 'unspecified';
  if (loopback.check(a, type)) return 'loopback';
  if (privateNets.check(a, type)) return 'private';
  return 'public';
}

/**
 * Why an address may not be called, or undefined when it may. `explicitlyAllowed` is true when
 * the host was listed in the document's allowedHosts by the operator (not derived from the base URL).
 */
export function addressRefusal(address: string, explicitlyAllowed: boolean): string | undefined {
  const cls = classifyAddress(address);
  switch (cls) {
    case 'metadata':
      return `${address} is a cloud metadata address, which is never called`;
    case 'link-local':
      return `${address} is a link-local address, which is never called`;
    case 'unspecified':
      return `${address} is not a routable unicast address`;
    case 'loopback':
    case 'private':
      return explicitlyAllowed ? undefined : `${address} is a ${cls} address; list the host in allowedHosts to call it`;
    default:
      return undefined;
  }
}

/** Resolves a host name (an IP literal resolves to itself). @throws the resolver's error (ENOTFOUND, ...). */
export async function resolveHost(host: string): Promise<string[]> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare) !== 0) return [bare];
  const found = await dnsLookup(bare, { all: true, verbatim: true });
  return found.map((f) => f.address);
}
