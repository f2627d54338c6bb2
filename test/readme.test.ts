/** README.md opens with the two set-up commands, and CI runs exactly the second one. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const commands = (/```bash\n([\s\S]*?)```/.exec(readme)?.[1] ?? '')
  .split('\n')
  .map((l) => l.replace(/#.*$/, '').trim())
  .filter(Boolean);

describe('README set-up commands', () => {
  it('are exactly two, in the first code block: run, then test', () => {
    expect(readme.indexOf('```bash')).toBeLessThan(40);
    expect(commands).toEqual(['npm install && npm start', 'npm install && npm run test:all']);
  });

  it('the test command is the one .ci/run runs', () => {
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#') && !l.startsWith('set ') && !l.startsWith('cd '));
    expect(ci).toEqual([commands[1]]);
  });

  it('npm start and npm run test:all are defined', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['start']).toBeDefined();
    expect(pkg.scripts['test:all']).toBeDefined();
  });
});
