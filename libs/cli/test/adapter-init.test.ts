import { isValidToolName } from '@toolhub/contracts';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { cliRunner } from './support/run-cli';

describe('toolhub adapter init', () => {
  const cli = cliRunner({});
  let base: string;
  beforeEach(() => (base = mkdtempSync(join(tmpdir(), 'adapter-init-'))));
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('scaffolds an adapter repository: SDK dependency, a tool, a test, a Dockerfile and CI running the conformance kit', async () => {
    const dir = join(base, 'weather');
    const r = await cli(['adapter', 'init', dir, '--provider', 'weather']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Created adapter weather');
    const read = (f: string) => readFileSync(join(dir, f), 'utf8');
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies)).toEqual(expect.arrayContaining(['@toolhub/adapter-sdk', '@toolhub/bus', '@toolhub/contracts']));
    expect(pkg.devDependencies).toHaveProperty('@toolhub/adapter-conformance');
    expect(read('src/tools.ts')).toContain("name: 'weather_hello'");
    expect(isValidToolName('weather_hello')).toBe(true);
    expect(read('src/main.ts')).toContain("const PROVIDER = 'weather'");
    expect(read('test/tools.test.ts')).toContain("from 'node:test'");
    expect(read('Dockerfile')).toContain('CMD ["node", "dist/src/main.js"]');
    expect(read('.github/workflows/ci.yml')).toContain('npx toolhub-adapter-conformance --nats "$NATS_URL" --provider weather');
  });

  it('takes the provider name from the directory name', async () => {
    const r = await cli(['adapter', 'init', join(base, 'billing-adapter'), '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ provider: 'billing' });
  });

  it('refuses a directory that is not empty, changing nothing', async () => {
    writeFileSync(join(base, 'keep.txt'), 'mine');
    const r = await cli(['adapter', 'init', base, '--provider', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('exists and is not empty');
    expect(readFileSync(join(base, 'keep.txt'), 'utf8')).toBe('mine');
  });

  it('refuses an invalid provider name with the rule', async () => {
    const r = await cli(['adapter', 'init', join(base, 'a'), '--provider', 'Bad Name']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Provider name "Bad Name" must match');
  });
});
