/** `toolhub batch FILE` in-process against a whole ToolHub (see support/toolhub.ts). */
import { EXIT_CODES } from '@toolhub/cli';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type CliResult, cliRunner } from './support/run-cli';
import { startTestHub, type TestHub } from './support/toolhub';

jest.setTimeout(20_000);

let hub: TestHub;
let dir: string;
let cli: (args: string[], io?: Parameters<ReturnType<typeof cliRunner>>[1]) => Promise<CliResult>;

beforeAll(async () => {
  hub = await startTestHub();
  dir = mkdtempSync(join(tmpdir(), 'cli-batch-'));
  cli = cliRunner({ TOOLHUB_ADDRESS: hub.address, TOOLHUB_ADMIN_ADDRESS: hub.adminAddress });
});

afterAll(async () => {
  await hub.close();
  rmSync(dir, { recursive: true, force: true });
});

const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('toolhub batch', () => {
  it('runs a YAML batch in dependency order, feeding an output forward, and prints each call', async () => {
    const path = file(
      'calls.yaml',
      `
calls:
  - id: sum
    tool: local:math_calculate
    args: { expression: "2 + 2" }
  - id: hi
    provider: test
    name: greet
    args:
      who: { $ref: "#/calls/sum/text" }
  - id: twice
    tool: test:greet
    args: { who: { $ref: "#/calls/sum/structured/result" }, times: 2 }
    after: [hi]
`,
    );
    const r = await cli(['batch', path]);
    expect(r.code).toBe(EXIT_CODES.ok);
    expect(r.stdout).toMatch(/^== sum {2}local:math_calculate {2}ok \(level 0, .+\)\n4\n== hi {2}test:greet {2}ok \(level 1, .+\)\nhello 4\n== twice {2}test:greet {2}ok \(level 2, .+\)\nhello 4\nhello 4\n$/);
    expect(r.stderr).toMatch(/3 calls in 3 levels, .+: 3 ok/);
  });

  it('with --json (file from stdin): every result, a failed call skipping only its dependants, exit 1', async () => {
    const batch = {
      calls: [
        { id: 'weather', tool: 'test:weather_lookup', args: { city: 'Oslo' } },
        { id: 'after_weather', tool: 'test:greet', args: { who: { $ref: '#/calls/weather/text' } } },
        { id: 'independent', tool: 'test:greet', args: { who: 'Ada' } },
      ],
    };
    const r = await cli(['batch', '-', '--json'], { readStdin: async () => JSON.stringify(batch) });
    expect(r.code).toBe(EXIT_CODES.toolError);
    const doc = r.json<{ ok: boolean; levels: number; results: Array<{ id: string; state: string; content?: Array<{ text: string }>; error?: { message: string } }> }>();
    expect(doc.ok).toBe(false);
    expect(doc.levels).toBe(2);
    expect(doc.results.map((x) => [x.id, x.state])).toEqual([
      ['weather', 'tool_error'],
      ['after_weather', 'skipped'],
      ['independent', 'ok'],
    ]);
    expect(doc.results[1]!.error!.message).toContain('call weather');
    expect(doc.results[2]!.content![0]!.text).toBe('hello Ada');
  });

  it("runs the README's example batch file as written", async () => {
    const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
    const example = /A batch file for `batch`[^\n]*\n\n```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const r = await cli(['batch', file('readme.yaml', example!)]);
    expect(r.code).toBe(EXIT_CODES.ok);
    expect(r.stdout).toMatch(/^== sum {2}local:math_calculate {2}ok \(level 0, .+\)\n42\n== shout {2}local:text_transform {2}ok \(level 1, .+\)\n42\n== later {2}local:time_now {2}ok \(level 2, .+\)\n/);
  });

  it('exits 4 when the server refuses the graph (a cycle), before any call runs', async () => {
    const path = file('cycle.json', JSON.stringify([
      { id: 'a', tool: 'test:greet', args: { who: { $ref: '#/calls/b/text' } } },
      { id: 'b', tool: 'test:greet', args: { who: { $ref: '#/calls/a/text' } } },
    ]));
    const r = await cli(['batch', path]);
    expect(r.code).toBe(EXIT_CODES.invalidArgument);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/before any call ran.*cycle/);
  });

  it('exits 2 for a file it cannot use, naming the call and field, before sending anything', async () => {
    const notYaml = await cli(['batch', file('bad.yaml', 'calls: [ {id: a')]);
    expect(notYaml.code).toBe(EXIT_CODES.usage);
    expect(notYaml.stderr).toContain('neither JSON nor YAML');
    const noId = await cli(['batch', file('noid.yaml', 'calls:\n  - tool: test:greet\n')]);
    expect(noId.code).toBe(EXIT_CODES.usage);
    expect(noId.stderr).toContain('calls[0] has no id');
    const typo = await cli(['batch', file('typo.yaml', 'calls:\n  - id: a\n    tool: test:greet\n    arg: {who: x}\n')]);
    expect(typo.stderr).toContain('unknown key arg');
    const missing = await cli(['batch', join(dir, 'nope.yaml')]);
    expect(missing.code).toBe(EXIT_CODES.usage);
    expect(missing.stderr).toContain('ENOENT');
  });
});
