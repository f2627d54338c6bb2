import { PROVIDER_NAME_PATTERN, isValidToolName } from '@toolhub/contracts';
import { ADAPTER_EXIT, createAdapter, createAdapterMain, PROVIDER_PATTERN, providerFromDirectory, SCAFFOLD_VERSIONS } from '@toolhub/create-adapter';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

describe('@toolhub/create-adapter', () => {
  let base: string;
  beforeEach(() => (base = mkdtempSync(join(tmpdir(), 'create-adapter-'))));
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('pins exactly the versions of the @toolhub packages in this repository', () => {
    for (const [name, version] of Object.entries(SCAFFOLD_VERSIONS)) {
      const manifest = JSON.parse(readFileSync(join(ROOT, 'libs', name.replace('@toolhub/', ''), 'package.json'), 'utf8')) as { version: string };
      expect({ name, version }).toEqual({ name, version: manifest.version });
    }
  });

  it('accepts exactly the provider names of the contract', () => {
    expect(PROVIDER_PATTERN.source).toBe(PROVIDER_NAME_PATTERN.source);
  });

  it('writes a project depending on the exact SDK versions, whose main reports a NATS refusal in one line', () => {
    const created = createAdapter('weather-adapter', { cwd: base });
    expect(created.provider).toBe('weather');
    const read = (f: string) => readFileSync(join(base, 'weather-adapter', f), 'utf8');
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(pkg.dependencies).toMatchObject({ '@toolhub/adapter-sdk': SCAFFOLD_VERSIONS['@toolhub/adapter-sdk'], '@toolhub/bus': SCAFFOLD_VERSIONS['@toolhub/bus'], '@toolhub/contracts': SCAFFOLD_VERSIONS['@toolhub/contracts'] });
    expect(pkg.devDependencies['@toolhub/adapter-conformance']).toBe(SCAFFOLD_VERSIONS['@toolhub/adapter-conformance']);
    const main = read('src/main.ts');
    expect(main).toContain('ensureStream: false');
    expect(main).toContain(`refused: ${ADAPTER_EXIT.refused}`);
    expect(main).toContain('main().catch(');
    expect(created.files).toEqual(expect.arrayContaining(['package.json', 'src/main.ts', 'src/tools.ts', 'test/tools.test.ts', 'Dockerfile', '.github/workflows/ci.yml']));
  });

  it('turns a provider name with a dash into a valid tool name', () => {
    createAdapter(join(base, 'x'), { provider: 'acme-crm' });
    expect(readFileSync(join(base, 'x', 'src', 'tools.ts'), 'utf8')).toContain("name: 'acme_crm_hello'");
    expect(isValidToolName('acme_crm_hello')).toBe(true);
  });

  it('takes the provider from the directory name', () => {
    expect(providerFromDirectory('/a/billing-adapter')).toBe('billing');
    expect(providerFromDirectory('/a/Crm_toolhub_adapter')).toBe('crm');
  });

  it('refuses a directory that is not empty, changing nothing, with exit code 2', async () => {
    writeFileSync(join(base, 'keep.txt'), 'mine');
    const err: string[] = [];
    const code = await createAdapterMain([base, '--provider', 'x'], { out: () => undefined, err: (t) => err.push(t), cwd: base });
    expect(code).toBe(2);
    expect(err.join('')).toContain('exists and is not empty');
    expect(readFileSync(join(base, 'keep.txt'), 'utf8')).toBe('mine');
  });

  it('refuses a bad provider name with the rule, and a missing directory with usage', async () => {
    const err: string[] = [];
    const io = { out: () => undefined, err: (t: string) => err.push(t), cwd: base };
    expect(await createAdapterMain(['a', '--provider', 'Bad Name'], io)).toBe(2);
    expect(err.join('')).toContain('Provider name "Bad Name" must match');
    expect(await createAdapterMain([], io)).toBe(2);
    expect(err.join('')).toContain('give exactly one directory');
  });
});
