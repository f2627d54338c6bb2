import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { CloudConfigError, createCloudAdapter, defaultConfigPath, loadCloudConfig, parseCloudConfig } from '../src';

const PETSTORE = join(__dirname, '..', '..', '..', '..', 'shared', 'data', 'openapi', 'petstore.yaml');

function configError(fn: () => unknown): CloudConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof CloudConfigError) return err;
    throw err;
  }
  throw new Error('expected a CloudConfigError');
}

async function asyncConfigError(p: Promise<unknown>): Promise<CloudConfigError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof CloudConfigError) return err;
    throw err;
  }
  throw new Error('expected a CloudConfigError');
}

describe('parseCloudConfig', () => {
  it('fills in every default for a minimal document', () => {
    const config = parseCloudConfig('documents:\n  - alias: pets\n    source: ./petstore.yaml\n', { baseDir: '/srv/apis' });
    expect(config).toEqual({
      provider: 'cloud',
      documents: [
        {
          alias: 'pets',
          source: '/srv/apis/petstore.yaml',
          baseUrl: undefined,
          mount: 'pets',
          tagPaths: true,
          allowedHosts: [],
          explicitHosts: false,
          auth: undefined,
          include: [],
          exclude: [],
          normalizeParams: true,
          timeoutMs: 30_000,
          maxRequestBytes: 1_048_576,
          maxResponseBytes: 262_144,
          retries: 2,
          maxRedirects: 5,
          importance: 'normal',
          validate: 'warn',
          serverVariables: {},
        },
      ],
    });
  });

  it('applies file defaults, per-document overrides and ${VAR} references', () => {
    const config = parseCloudConfig(
      {
        provider: 'apis',
        normalizeParams: false,
        defaults: { timeout: '5s', maxResponseBytes: '64KiB', retries: 1 },
        documents: [
          {
            alias: 'shop',
            source: 'https://specs.example.com/shop.yaml',
            baseUrl: '${SHOP_URL:-https://shop.example.com/api}',
            mount: 'Commerce/Shop',
            allowedHosts: ['shop.example.com', '*.cdn.example.com'],
            auth: { type: 'apiKey', in: 'query', name: 'api_key', valueEnv: 'SHOP_KEY' },
            timeout: 2000,
            normalizeParams: true,
            validate: 'error',
          },
        ],
      },
      { env: {} },
    );
    const d = config.documents[0]!;
    expect(config.provider).toBe('apis');
    expect(d).toMatchObject({
      source: 'https://specs.example.com/shop.yaml',
      baseUrl: 'https://shop.example.com/api',
      mount: 'commerce/shop',
      explicitHosts: true,
      auth: { type: 'apiKey', in: 'query', name: 'api_key', valueEnv: 'SHOP_KEY' },
      timeoutMs: 2000,
      maxResponseBytes: 65_536,
      retries: 1,
      normalizeParams: true,
      validate: 'error',
    });
    expect(d.allowedHosts.map((r) => r.text)).toEqual(['shop.example.com', '*.cdn.example.com']);
  });

  it('reports every problem at once, naming the field', () => {
    const err = configError(() =>
      parseCloudConfig(
        {
          provider: 'Bad Provider',
          documents: [
            { alias: 'Pets', source: 'p.yaml' },
            { alias: 'ok', source: 'ftp://x/y.yaml', baseUrl: 'https://user:pw@api.test/?k=1' },
            { alias: 'auth', source: 'a.yaml', auth: { type: 'oauth2' } },
            { alias: 'key', source: 'a.yaml', auth: { type: 'bearer', tokenEnv: 'not a name' } },
            { alias: 'tuning', source: 'a.yaml', timeout: 'soon', maxResponseBytes: 'lots' },
            { alias: 'typo', source: 'a.yaml', retrys: 3 },
            { alias: 'gh', source: 'a.yaml' },
            { alias: 'gh_enterprise', source: 'a.yaml' },
            { alias: 'gh', source: 'b.yaml' },
            { alias: 'hosts', source: 'a.yaml', allowedHosts: ['https://a.test', ''] },
          ],
        },
        { source: 'cloud.yaml' },
      ),
    );
    expect(err.code).toBe('invalid');
    const paths = err.issues.map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'provider',
        'documents[0].alias',
        'documents[1].source',
        'documents[1].baseUrl',
        'documents[2].auth.type',
        'documents[3].auth.tokenEnv',
        'documents[9].allowedHosts[0]',
        'documents[9].allowedHosts[1]',
        'documents[4].timeout',
        'documents[4].maxResponseBytes',
        'documents[5]',
        'documents[8].alias',
        'documents.gh_enterprise',
      ]),
    );
    expect(err.message).toMatch(/^Invalid cloud\.yaml \(\d+ problems\):/);
    expect(err.message).toContain('documents[2].auth.type: auth.type must be "bearer", "apiKey" or "basic"');
    expect(err.message).toContain('documents[3].auth.tokenEnv: expected the name of an environment variable');
    expect(err.message).toContain('documents[1].baseUrl: must not contain credentials');
    expect(err.message).toMatch(/documents\[5\]: Unrecognized key: "retrys"/);
    expect(err.message).toContain('gh_enterprise_x could belong to either');
  });

  it('names an unset ${VAR} by field, and rejects bad YAML with its position', () => {
    const unset = configError(() => parseCloudConfig('documents:\n  - alias: a\n    source: a.yaml\n    baseUrl: ${API_URL}\n', { env: {} }));
    expect(unset.issues).toEqual([{ path: 'documents[0].baseUrl', message: 'environment variable API_URL is not set' }]);
    const yaml = configError(() => parseCloudConfig('documents: [\n  - alias: a', { source: 'x.yaml' }));
    expect(yaml.code).toBe('unreadable');
    expect(yaml.message).toMatch(/^x\.yaml is not valid YAML or JSON: .*line \d+, column \d+/);
  });

  it('loads files relative to their directory and refuses other extensions', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloud-config-'));
    try {
      writeFileSync(join(dir, 'cloud.json'), JSON.stringify({ documents: [{ alias: 'p', source: 'specs/p.yaml' }] }));
      expect(loadCloudConfig(join(dir, 'cloud.json')).documents[0]!.source).toBe(join(dir, 'specs', 'p.yaml'));
      expect(configError(() => loadCloudConfig(join(dir, 'cloud.toml'))).message).toMatch(/should be a \.yaml, \.yml or \.json file/);
      expect(configError(() => loadCloudConfig(join(dir, 'missing.yaml'))).code).toBe('unreadable');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('createCloudAdapter start-up', () => {
  const SECRET = 'sk-live-0123456789abcdef';

  it('names a missing credential variable and the field, never a value', async () => {
    const config = parseCloudConfig({
      documents: [
        { alias: 'a', source: PETSTORE, auth: { type: 'bearer', tokenEnv: 'A_TOKEN' } },
        { alias: 'b', source: PETSTORE, auth: { type: 'basic', usernameEnv: 'B_USER', passwordEnv: 'B_PASSWORD' } },
      ],
    });
    const err = await asyncConfigError(createCloudAdapter(config, { env: { A_TOKEN: SECRET, B_USER: 'bob' } }));
    expect(err.code).toBe('invalid');
    expect(err.issues).toEqual([{ path: 'documents[1].auth.passwordEnv', message: 'environment variable B_PASSWORD is not set (document "b" needs it for basic auth)' }]);
    expect(JSON.stringify({ message: err.message, issues: err.issues })).not.toContain(SECRET);
  });

  it('quarantines documents that cannot be loaded and starts with the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloud-docs-'));
    try {
      writeFileSync(join(dir, 'swagger.yaml'), 'swagger: "2.0"\ninfo: { title: old, version: "1" }\npaths: {}\n');
      writeFileSync(join(dir, 'broken.yaml'), 'openapi: 3.0.0\ninfo: { title: b, version: "1" }\npaths:\n  /x:\n    get:\n      responses:\n        "200": { $ref: "#/components/responses/Nope" }\n');
      writeFileSync(join(dir, 'garbage.yaml'), 'openapi: [3.0.0\n  : : {{{\n');
      const config = parseCloudConfig({
        documents: [
          { alias: 'missing', source: join(dir, 'nope.yaml') },
          { alias: 'old', source: join(dir, 'swagger.yaml'), validate: 'off' },
          { alias: 'broken', source: join(dir, 'broken.yaml'), validate: 'off' },
          { alias: 'garbage', source: join(dir, 'garbage.yaml'), validate: 'off' },
          { alias: 'petstore', source: join(__dirname, '..', 'config', 'openapi', 'petstore.yaml'), baseUrl: 'http://127.0.0.1:4010', validate: 'off' },
        ],
      });
      const adapter = await createCloudAdapter(config, { env: {} });
      try {
        const quarantined = adapter.quarantined();
        expect(quarantined.map((q) => [q.source, q.rule])).toEqual([
          ['missing', 'load'],
          ['old', 'load'],
          ['broken', 'load'],
          ['garbage', 'load'],
        ]);
        expect(quarantined[1]!.reason).toMatch(/Swagger 2\.0 document; convert it to OpenAPI 3 first/);
        expect(quarantined[2]!.reason).toMatch(/Nope/);
        expect((await adapter.catalog()).map((t) => t.name).sort()).toEqual(['petstore_create_pets', 'petstore_list_pets', 'petstore_show_pet_by_id']);
        expect(await adapter.health!()).toEqual({ healthy: true, detail: '1 OpenAPI document, 3 tools; 4 quarantined' });
      } finally {
        await adapter.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an explicit allowlist that does not cover the base URL, and a document without a server', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloud-docs-'));
    try {
      writeFileSync(join(dir, 'noserver.yaml'), 'openapi: 3.0.0\ninfo: { title: n, version: "1" }\npaths:\n  /x:\n    get:\n      responses: { "200": { description: ok } }\n');
      const config = parseCloudConfig({
        documents: [
          { alias: 'pets', source: PETSTORE, allowedHosts: ['api.other.test'] },
          { alias: 'nos', source: join(dir, 'noserver.yaml') },
        ],
      });
      const err = await asyncConfigError(createCloudAdapter(config, { env: {} }));
      expect(err.issues).toEqual([
        { path: 'documents[0].allowedHosts', message: 'the base URL host petstore.swagger.io is not listed, so every call would be refused' },
        { path: 'documents[1].baseUrl', message: 'document "nos" declares no server; set baseUrl' },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('loads the shipped default configuration without any network', async () => {
    const config = loadCloudConfig(defaultConfigPath(), { env: {} });
    const warnings: string[] = [];
    const adapter = await createCloudAdapter(config, { env: {}, logger: { info() {}, warn: (_o, m) => warnings.push(m ?? ''), error() {} } });
    try {
      expect(adapter.provider).toBe('cloud');
      expect((await adapter.catalog()).map((t) => t.id).sort()).toEqual(['cloud:petstore_create_pets', 'cloud:petstore_list_pets', 'cloud:petstore_show_pet_by_id']);
      expect(await adapter.listTools('demo', false)).toEqual({ categories: [{ path: 'demo/petstore', name: 'petstore', toolCount: 3 }], tools: [] });
      await expect(adapter.getToolInfo('petstore_list_pet')).rejects.toThrow(/Did you mean "petstore_list_pets"/);
      expect(adapter.problems).toEqual([]);
      expect(warnings).toEqual([]);
      expect(await adapter.health!()).toEqual({ healthy: true, detail: '1 OpenAPI document, 3 tools' });
    } finally {
      await adapter.close();
    }
  });
});
