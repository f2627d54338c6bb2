import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createMcpAdapter, defaultConfigPath, loadMcpConfig, McpConfigError, parseMcpConfig } from '../src';

function errorOf(fn: () => unknown): McpConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof McpConfigError) return err;
    throw err;
  }
  throw new Error('expected an McpConfigError');
}

describe('parseMcpConfig', () => {
  it('fills in every default for a minimal stdio server', () => {
    const config = parseMcpConfig('servers:\n  - alias: fs\n    transport: stdio\n    command: node\n    args: [server.js]\n', { baseDir: '/srv' });
    expect(config).toEqual({
      provider: 'mcp',
      servers: [
        {
          alias: 'fs',
          mount: 'fs',
          transport: { type: 'stdio', command: process.execPath, args: ['server.js'], env: {}, cwd: undefined },
          include: [],
          exclude: [],
          timeoutMs: 60_000,
          connectTimeoutMs: 20_000,
          connect: 'lazy',
          normalizeParams: true,
          importance: 'normal',
          maxTools: 1000,
        },
      ],
      quarantined: [],
    });
  });

  it('reads JSON as well as YAML, with document defaults and per-server overrides', () => {
    const json = JSON.stringify({
      provider: 'tools',
      normalizeParams: false,
      defaults: { timeout: '5s', connect: 'eager', importance: 'low' },
      servers: [
        { alias: 'remote', transport: 'streamable-http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer abc' }, mount: '/Remote/Tools/', timeout: 250 },
        { alias: 'old', transport: 'sse', url: 'http://127.0.0.1:3001/sse', normalizeParams: true, include: ['get_*'], exclude: ['get_secret'] },
      ],
    });
    const config = parseMcpConfig(json);
    expect(config.provider).toBe('tools');
    expect(config.servers[0]).toMatchObject({ mount: 'remote/tools', timeoutMs: 250, connect: 'eager', normalizeParams: false, importance: 'low', transport: { type: 'streamable-http', headers: { Authorization: 'Bearer abc' } } });
    expect(config.servers[1]).toMatchObject({ timeoutMs: 5000, normalizeParams: true, include: ['get_*'], exclude: ['get_secret'], transport: { type: 'sse' } });
  });

  it('substitutes ${VAR} and ${VAR:-default} from the given environment', () => {
    const yaml = [
      'servers:',
      '  - alias: gh',
      '    transport: streamable-http',
      '    url: ${GH_URL:-https://api.example.com/mcp}',
      '    headers: { Authorization: "Bearer ${GH_TOKEN}", X-Literal: "$${NOT_A_VAR}" }',
    ].join('\n');
    const config = parseMcpConfig(yaml, { env: { GH_TOKEN: 's3cr3t-token' } });
    expect(config.servers[0]?.transport).toEqual({ type: 'streamable-http', url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer s3cr3t-token', 'X-Literal': '${NOT_A_VAR}' } });
  });

  it('reports every problem at once, by path', () => {
    const yaml = [
      'provider: Bad.Provider',
      'servers:',
      '  - alias: Everything',
      '    transport: stdio',
      '    command: node',
      '  - alias: web',
      '    transport: websocket',
      '    url: ws://x',
      '  - alias: api',
      '    transport: streamable-http',
      '    url: ftp://example.com',
      '    headrs: {}',
      '    timeout: soon',
    ].join('\n');
    const err = errorOf(() => parseMcpConfig(yaml, { source: 'mcp.yaml' }));
    expect(err.code).toBe('invalid');
    const byPath = Object.fromEntries(err.issues.map((i) => [i.path, i.message]));
    expect(Object.keys(byPath).sort()).toEqual(['provider', 'servers[0].alias', 'servers[1].transport', 'servers[2]', 'servers[2].timeout', 'servers[2].url']);
    expect(byPath['servers[1].transport']).toBe('transport must be "stdio", "streamable-http" or "sse"');
    expect(byPath['servers[2].url']).toBe('expected an http:// or https:// URL');
    expect(byPath['servers[2]']).toMatch(/headrs/);
    expect(err.message).toMatch(/^Invalid mcp\.yaml \(6 problems\):\n {2}- /);
  });

  it('requires exactly one of command and package for stdio servers', () => {
    const neither = errorOf(() => parseMcpConfig('servers: [{ alias: a, transport: stdio }]'));
    expect(neither.issues).toEqual([{ path: 'servers[0].command', message: 'required for the stdio transport (or set package)' }]);
    const both = errorOf(() => parseMcpConfig('servers: [{ alias: a, transport: stdio, command: x, package: y }]'));
    expect(both.issues[0]?.message).toBe('set either command or package, not both');
  });

  it('resolves an installed package to its bin, run by this Node', () => {
    const config = parseMcpConfig('servers: [{ alias: e, transport: stdio, package: "@modelcontextprotocol/server-everything", args: [stdio] }]', { baseDir: __dirname });
    const t = config.servers[0]?.transport;
    expect(t).toMatchObject({ type: 'stdio', command: process.execPath });
    expect(t?.type === 'stdio' && t.args).toEqual([expect.stringMatching(/node_modules\/@modelcontextprotocol\/server-everything\/dist\/index\.js$/), 'stdio']);
  });

  it('quarantines a server whose package is missing, saying where it looked and how to install it; the others load', () => {
    const yaml = 'servers:\n  - { alias: a, transport: stdio, package: "@nope/not-installed", cwd: /opt/servers }\n  - { alias: e, transport: stdio, package: "@modelcontextprotocol/server-everything", args: [stdio] }\n';
    const config = parseMcpConfig(yaml, { baseDir: __dirname });
    expect(config.servers.map((s) => s.alias)).toEqual(['e']);
    expect(config.quarantined).toEqual([{ alias: 'a', rule: 'resolve', reason: expect.stringMatching(/not installed .*\/opt\/servers\/node_modules\/@nope\/not-installed.*npm install @nope\/not-installed in the server's cwd/) }]);
    // The adapter reports it in the catalog's quarantine (and the registry shows it to operators).
    expect(createMcpAdapter(config).quarantined()).toContainEqual({ source: 'a', rule: 'resolve', reason: expect.stringMatching(/not installed/) });
  });

  it("looks a package up in the server's cwd first", () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-cwd-'));
    try {
      mkdirSync(join(dir, 'node_modules', 'own-mcp-server'), { recursive: true });
      writeFileSync(join(dir, 'node_modules', 'own-mcp-server', 'package.json'), JSON.stringify({ name: 'own-mcp-server', bin: { 'own-mcp-server': 'server.js' } }));
      const config = parseMcpConfig(`servers: [{ alias: own, transport: stdio, package: own-mcp-server, cwd: ${JSON.stringify(dir)} }]`, { baseDir: '/' });
      const t = config.servers[0]?.transport;
      expect(t?.type === 'stdio' && t.args[0]).toBe(join(dir, 'node_modules', 'own-mcp-server', 'server.js'));
      expect(t?.type === 'stdio' && t.cwd).toBe(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects duplicate aliases and aliases that would make tool names ambiguous', () => {
    const yaml = 'servers:\n' + ['gh', 'gh', 'gh_enterprise'].map((a) => `  - { alias: ${a}, transport: sse, url: "http://x/sse" }`).join('\n');
    const err = errorOf(() => parseMcpConfig(yaml));
    expect(err.issues.map((i) => i.message)).toEqual([
      'alias "gh" is used twice; aliases name tools and must be unique',
      'aliases "gh" and "gh_enterprise" would give ambiguous tool names (gh_enterprise_x could belong to either); rename one',
    ]);
  });

  it('names the variable and field when a ${VAR} is not set', () => {
    const err = errorOf(() => parseMcpConfig('servers: [{ alias: a, transport: stdio, command: x, env: { TOKEN: "${MISSING_TOKEN}" } }]', { env: {} }));
    expect(err.issues).toEqual([{ path: 'servers[0].env.TOKEN', message: 'environment variable MISSING_TOKEN is not set' }]);
  });

  it('rejects a bad mount path with the path rule', () => {
    const err = errorOf(() => parseMcpConfig('servers: [{ alias: a, transport: sse, url: "http://x", mount: "a/../b" }]'));
    expect(err.issues[0]?.path).toBe('servers[0].mount');
  });

  it('never puts env or header values in its errors', () => {
    const yaml = 'servers:\n  - alias: a\n    transport: streamable-http\n    url: 12\n    headers: { Authorization: "Bearer top-secret-value", "bad header": "other-secret-value" }\n  - alias: b\n    transport: stdio\n    command: x\n    env: { API_KEY: 42, "bad name": "third-secret-value" }';
    const err = errorOf(() => parseMcpConfig(yaml));
    expect(err.issues.length).toBeGreaterThanOrEqual(3);
    expect(err.message).not.toMatch(/secret-value/);
  });

  it('reports YAML syntax errors with the line, without quoting the source', () => {
    const err = errorOf(() => parseMcpConfig('servers:\n  - alias: a\n    headers: { Authorization: "Bearer hidden-token"\n'));
    expect(err.code).toBe('unreadable');
    expect(err.message).toMatch(/line \d+, column \d+/);
    expect(err.message).not.toContain('hidden-token');
  });
});

describe('loadMcpConfig', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-config-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('resolves relative commands and cwd against the file, and ${configDir} to its directory', () => {
    mkdirSync(join(dir, 'bin'), { recursive: true });
    const file = join(dir, 'mcp.yaml');
    writeFileSync(file, 'servers:\n  - alias: a\n    transport: stdio\n    command: ./bin/server\n    args: ["${configDir}/data"]\n    cwd: bin\n');
    expect(loadMcpConfig(file).servers[0]?.transport).toEqual({ type: 'stdio', command: join(dir, 'bin/server'), args: [`${dir}/data`], env: {}, cwd: join(dir, 'bin') });
  });

  it('says which file it cannot read', () => {
    const err = errorOf(() => loadMcpConfig(join(dir, 'missing.yaml')));
    expect(err.code).toBe('unreadable');
    expect(err.message).toContain('missing.yaml');
  });

  it('loads the default configuration shipped with the package', () => {
    const config = loadMcpConfig(defaultConfigPath());
    expect(config.provider).toBe('mcp');
    expect(config.servers.map((s) => [s.alias, s.transport.type, s.connect])).toEqual([['everything', 'stdio', 'eager']]);
  });
});
