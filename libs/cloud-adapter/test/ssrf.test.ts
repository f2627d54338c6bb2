import { ToolHubError } from '@toolhub/contracts';

import { classifyAddress } from '../src';
import { addressRefusal, unmapAddress } from '../src/address';
import { type HostRule, matchHost, parseHostRule } from '../src/hosts';
import { type HttpPolicy, SafeHttpClient } from '../src/http';

function rules(...entries: string[]): HostRule[] {
  return entries.map((e) => {
    const r = parseHostRule(e);
    if (typeof r === 'string') throw new Error(r);
    return r;
  });
}

describe('address classes', () => {
  it.each([
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'unspecified'],
    ['255.255.255.255', 'unspecified'],
    ['ff02::1', 'unspecified'],
    ['not-an-ip', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['2606:4700::1111', 'public'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it('unwraps IPv4 inside IPv6 forms, and leaves real IPv6 alone', () => {
    expect(unmapAddress('[::FFFF:10.0.0.1]')).toBe('10.0.0.1');
    expect(unmapAddress('::a9fe:a9fe')).toBe('169.254.169.254');
    expect(unmapAddress('2001:db8::1')).toBe('2001:db8::1');
  });

  it('never allows metadata or link-local, and allows loopback and private only when listed explicitly', () => {
    expect(addressRefusal('169.254.169.254', true)).toMatch(/cloud metadata address, which is never called/);
    expect(addressRefusal('fe80::1', true)).toMatch(/link-local address, which is never called/);
    expect(addressRefusal('0.0.0.0', true)).toMatch(/not a routable unicast address/);
    expect(addressRefusal('127.0.0.1', false)).toMatch(/loopback address; list the host in allowedHosts/);
    expect(addressRefusal('127.0.0.1', true)).toBeUndefined();
    expect(addressRefusal('10.0.0.1', false)).toMatch(/private address/);
    expect(addressRefusal('10.0.0.1', true)).toBeUndefined();
    expect(addressRefusal('93.184.216.34', false)).toBeUndefined();
  });

  it('sees through numeric host spellings, because URLs are normalised before checking', () => {
    for (const spelled of ['http://0xa9fea9fe/', 'http://2852039166/', 'http://169.254.43518/', 'http://[::ffff:169.254.169.254]/']) {
      const host = new URL(spelled).hostname.replace(/^\[|\]$/g, '');
      expect(classifyAddress(host)).toBe('metadata');
    }
  });
});

describe('host allowlist', () => {
  it('parses hosts, ports, wildcards and IPv6 literals', () => {
    expect(parseHostRule('API.Example.com')).toMatchObject({ host: 'api.example.com', port: undefined, wildcard: false });
    expect(parseHostRule('127.0.0.1:4010')).toMatchObject({ host: '127.0.0.1', port: 4010 });
    expect(parseHostRule('*.example.com')).toMatchObject({ host: 'example.com', wildcard: true });
    expect(parseHostRule('[::1]:8080')).toMatchObject({ host: '::1', port: 8080 });
    expect(parseHostRule('https://example.com')).toMatch(/without a scheme/);
    expect(parseHostRule('user@example.com')).toMatch(/without a scheme, path or credentials/);
    expect(parseHostRule('::1')).toMatch(/in brackets/);
    expect(parseHostRule('example.com:99999')).toMatch(/between 1 and 65535/);
    expect(parseHostRule('*.10.0.0.1')).toMatch(/wildcard needs a domain name/);
    expect(parseHostRule('bad_host!.com')).toMatch(/not a valid host name/);
  });

  it('matches by host and port, and wildcards only sub-domains', () => {
    const list = rules('api.example.com', '127.0.0.1:4010', '*.svc.example.net', '[::1]:8080');
    expect(matchHost(list, new URL('https://api.example.com/x'))).toBeDefined();
    expect(matchHost(list, new URL('http://API.EXAMPLE.COM.:81/'))).toBeDefined();
    expect(matchHost(list, new URL('http://127.0.0.1:4010/'))).toBeDefined();
    expect(matchHost(list, new URL('http://127.0.0.1:4011/'))).toBeUndefined();
    expect(matchHost(list, new URL('http://a.svc.example.net/'))).toBeDefined();
    expect(matchHost(list, new URL('http://svc.example.net/'))).toBeUndefined();
    expect(matchHost(list, new URL('http://evilsvc.example.net/'))).toBeUndefined();
    expect(matchHost(list, new URL('http://[::1]:8080/'))).toBeDefined();
    expect(matchHost(list, new URL('http://api.example.com.evil.test/'))).toBeUndefined();
  });
});

describe('SafeHttpClient.checkTarget', () => {
  const policy = (over: Partial<HttpPolicy> = {}): HttpPolicy => ({
    alias: 'shop',
    allowedHosts: rules('api.shop.test', 'internal.shop.test', '169.254.169.254'),
    explicitHosts: false,
    maxRedirects: 3,
    maxResponseBytes: 1024,
    credentialHeaders: [],
    credentialQuery: [],
    ...over,
  });
  const dns: Record<string, string[]> = {
    'api.shop.test': ['93.184.216.34'],
    'internal.shop.test': ['10.0.0.7'],
    'rebind.shop.test': ['93.184.216.34', '169.254.169.254'],
  };
  const resolver = async (host: string) => {
    if (dns[host]) return dns[host];
    if (/^[\d.]+$/.test(host)) return [host];
    throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  };

  async function refusal(client: SafeHttpClient, url: string, from?: string): Promise<ToolHubError> {
    try {
      await client.checkTarget(new URL(url), from ? new URL(from) : undefined);
    } catch (err) {
      if (err instanceof ToolHubError) return err;
      throw err;
    }
    throw new Error(`expected ${url} to be refused`);
  }

  it('allows an allowlisted host with public addresses', async () => {
    const client = new SafeHttpClient(policy(), resolver);
    await expect(client.checkTarget(new URL('https://api.shop.test/v1/items'))).resolves.toBeUndefined();
    await client.close();
  });

  it('refuses hosts outside the allowlist, other schemes and URLs with credentials, before any DNS look-up', async () => {
    const lookups: string[] = [];
    const client = new SafeHttpClient(policy(), async (h) => {
      lookups.push(h);
      return resolver(h);
    });
    const other = await refusal(client, 'https://evil.example.com/');
    expect(other.code).toBe('permission_denied');
    expect(other.message).toMatch(/^Refused to call evil\.example\.com: host evil\.example\.com is not in the allowed hosts \(api\.shop\.test, internal\.shop\.test, 169\.254\.169\.254\)/);
    expect((await refusal(client, 'file:///etc/passwd')).message).toMatch(/file: URLs are not called/);
    expect((await refusal(client, 'https://user:pw@api.shop.test/')).message).toMatch(/URLs with credentials are not called/);
    expect(lookups).toEqual([]);
    await client.close();
  });

  it('refuses metadata addresses even when the host is allowlisted', async () => {
    const client = new SafeHttpClient(policy({ explicitHosts: true }), resolver);
    const direct = await refusal(client, 'http://169.254.169.254/latest/meta-data/');
    expect(direct.message).toMatch(/169\.254\.169\.254 resolves to 169\.254\.169\.254 is a cloud metadata address, which is never called/);
    const redirect = await refusal(client, 'http://169.254.169.254/latest/', 'https://api.shop.test/');
    expect(redirect.message).toMatch(/^Refused to follow the redirect from api\.shop\.test to 169\.254\.169\.254/);
    await client.close();
  });

  it('refuses a name that resolves to any refused address (one bad record is enough)', async () => {
    const client = new SafeHttpClient(policy({ allowedHosts: rules('*.shop.test') }), resolver);
    expect((await refusal(client, 'https://rebind.shop.test/')).message).toMatch(/rebind\.shop\.test resolves to 169\.254\.169\.254 is a cloud metadata address/);
    await client.close();
  });

  it('reaches private addresses only through hosts listed explicitly', async () => {
    const implicit = new SafeHttpClient(policy(), resolver);
    expect((await refusal(implicit, 'https://internal.shop.test/')).message).toMatch(/10\.0\.0\.7 is a private address; list the host in allowedHosts/);
    await implicit.close();
    const explicit = new SafeHttpClient(policy({ explicitHosts: true }), resolver);
    await expect(explicit.checkTarget(new URL('https://internal.shop.test/'))).resolves.toBeUndefined();
    await explicit.close();
  });

  it('reports a host that does not resolve as unavailable', async () => {
    const client = new SafeHttpClient(policy({ allowedHosts: rules('gone.shop.test') }), resolver);
    const err = await refusal(client, 'https://gone.shop.test/');
    expect(err.code).toBe('unavailable');
    expect(err.message).toMatch(/Cannot resolve gone\.shop\.test .*ENOTFOUND/);
    await client.close();
  });
});
