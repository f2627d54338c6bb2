/**
 * The `toolhub` CLI end to end, in-process: main() against a whole ToolHub (in-process bus,
 * registry, admin API, local tools, dispatcher) on free ports. Asserts what a person or a script
 * sees: the tables, the JSON documents, the messages and the exit codes.
 */
import { serveAdapter, staticCatalog } from '@toolhub/adapter-sdk';
import { ToolHubAgentClient } from '@toolhub/agent-kit';
import { EXIT_CODES } from '@toolhub/cli';
import { CONTRACT_VERSION } from '@toolhub/contracts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type CliResult, cliRunner } from './support/run-cli';
import { startTestHub, type TestHub } from './support/toolhub';
import { waitFor } from '@toolhub/test-harness';

jest.setTimeout(20_000);

let hub: TestHub;
let cli: (args: string[], io?: Parameters<ReturnType<typeof cliRunner>>[1]) => Promise<CliResult>;

beforeAll(async () => {
  hub = await startTestHub();
  cli = cliRunner({ TOOLHUB_ADDRESS: hub.address, TOOLHUB_ADMIN_ADDRESS: hub.adminAddress, USER: 'ops-alice' });
});

afterAll(async () => {
  await hub.close();
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  await waitFor(check, { timeoutMs, intervalMs: 25, message: what });
}

describe('toolhub providers', () => {
  it('prints every provider with its health and tool count', async () => {
    const r = await cli(['providers']);
    expect(r.code).toBe(EXIT_CODES.ok);
    expect(r.stdout.split('\n')[0]).toMatch(/^PROVIDER\s+HEALTH\s+TOOLS\s+REPLICAS\s+CONTRACT\s+DETAIL$/);
    expect(r.stdout).toMatch(new RegExp(`^local\\s+healthy\\s+14\\s+1\\s+${CONTRACT_VERSION.replace(/\./g, '\\.')}\\s+ok`, 'm'));
    expect(r.stdout).toMatch(/^test\s+healthy\s+3\s+1/m);
  });

  it('shows an adapter of another contract major as REFUSED, saying what to upgrade', async () => {
    const future = await serveAdapter(hub.bus, { provider: 'future', ...staticCatalog('future', []) }, { contractVersion: '2.0.0', announceOnStart: false });
    try {
      const r = await cli(['providers']);
      expect(r.code).toBe(EXIT_CODES.ok);
      expect(r.stdout).toMatch(/^future\s+REFUSED\s+0\s+0\s+2\.0\.0\s+refused: the adapter speaks ToolHub contract 2\.0\.0/m);
      expect(r.stdout).toContain('upgrade the dispatcher');
    } finally {
      await future.close();
    }
  });

  it('prints one JSON document with --json', async () => {
    const r = await cli(['providers', '--json']);
    expect(r.code).toBe(0);
    expect(r.json<{ providers: { provider: string; healthy: boolean }[] }>().providers.map((p) => p.provider)).toEqual(['local', 'test']);
  });
});

describe('toolhub ls', () => {
  it('lists the providers at the root', async () => {
    const r = await cli(['ls']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^PROVIDER\s+TOOLS\nlocal\s+14\ntest\s+3\n$/);
  });

  it("lists a provider's categories, then a category's tools (provider/path or provider path)", async () => {
    const categories = await cli(['ls', 'local']);
    expect(categories.stdout).toMatch(/^file\/\s+4$/m);
    expect(categories.stderr).toContain('next: toolhub ls local data');
    const slash = await cli(['ls', 'local/file']);
    const spaced = await cli(['ls', 'local', 'file']);
    expect(slash.stdout).toBe(spaced.stdout);
    expect(slash.stdout).toMatch(/^local:file_read\s+file\s+core\s+Read a UTF-8 text file/m);
  });

  it('lists every tool below with -r', async () => {
    const r = await cli(['ls', 'test', '-r', '--json']);
    expect(r.code).toBe(0);
    expect(r.json<{ tools: { id: string; importance: string }[] }>().tools.map((t) => t.id).sort()).toEqual(['test:greet', 'test:slow_report', 'test:weather_lookup']);
  });

  it('exits 3 for an unknown provider and names the known ones', async () => {
    const r = await cli(['ls', 'nope']);
    expect(r.code).toBe(EXIT_CODES.notFound);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error not_found: Unknown provider "nope"\. Known providers: local, test/);
  });
});

describe('toolhub info', () => {
  it('shows the description, a parameter table and an example call', async () => {
    const r = await cli(['info', 'local', 'math_calculate']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('local:math_calculate');
    expect(r.stdout).toMatch(/path math · importance core · read-only · idempotent/);
    expect(r.stdout).toMatch(/^expression\s+string\s+yes\s+A math\.js expression/m);
    expect(r.stdout).toMatch(/^precision\s+integer\s+no\s+14\s+Significant digits/m);
    expect(r.stdout).toContain(`toolhub run local math_calculate --args '{"expression":"5 km to mile"}'`);
  });

  it('accepts the id form provider:name and prints the ToolInfo with --json', async () => {
    const r = await cli(['info', 'test:greet', '--json']);
    expect(r.code).toBe(0);
    const { tool } = r.json<{ tool: { id: string; importance: string; inputSchema: { required: string[] } } }>();
    expect(tool).toMatchObject({ id: 'test:greet', importance: 'normal', inputSchema: { required: ['who'] } });
  });

  it('exits 3 for an unknown tool, with the close names the server suggests', async () => {
    const r = await cli(['info', 'local', 'math_calc']);
    expect(r.code).toBe(EXIT_CODES.notFound);
    expect(r.stderr).toContain('error not_found: Provider "local" has no tool "math_calc". Did you mean "math_calculate"?');
  });

  it('exits 2 when the tool is given half or twice', async () => {
    const half = await cli(['info', 'local']);
    expect(half.code).toBe(EXIT_CODES.usage);
    expect(half.stderr).toContain('info needs a tool: <provider> <name> or <provider:name>');
    const twice = await cli(['info', 'local:greet', 'greet']);
    expect(twice.code).toBe(EXIT_CODES.usage);
  });
});

describe('toolhub run', () => {
  it('prints the tool output on stdout and repairs as notes on stderr', async () => {
    const r = await cli(['run', 'local', 'math_calculate', '--arg', 'expression=17% * 2340']);
    expect(r.code).toBe(EXIT_CODES.ok);
    expect(r.stdout).toBe('397.8\n');
    expect(r.stderr).toContain('note: argument /precision was repaired');
  });

  it('takes --args as JSON text, @file or - (stdin), with --arg key:=json on top', async () => {
    const inline = await cli(['run', 'test:greet', '--args', '{"who":"Ada"}']);
    expect(inline.stdout).toBe('hello Ada\n');
    const dir = mkdtempSync(join(tmpdir(), 'cli-args-'));
    try {
      writeFileSync(join(dir, 'args.json'), '{"who":"Lin"}');
      const file = await cli(['run', 'test', 'greet', '--args', `@${join(dir, 'args.json')}`, '--arg', 'times:=2']);
      expect(file.stdout).toBe('hello Lin\nhello Lin\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const stdin = await cli(['run', 'test', 'greet', '--args', '-'], { readStdin: async () => '{"who":"Grace"}' });
    expect(stdin.stdout).toBe('hello Grace\n');
  });

  it('exits 1 when the tool ran and reported a failure, printing its message', async () => {
    const r = await cli(['run', 'test', 'weather_lookup', '--arg', 'city=Oslo']);
    expect(r.code).toBe(EXIT_CODES.toolError);
    expect(r.stdout).toBe('the weather service has no data for Oslo; try again later\n');
    expect(r.stderr).toContain('error tool_error: test:weather_lookup ran and reported a failure');
    const json = await cli(['run', 'test', 'weather_lookup', '--arg', 'city=Oslo', '--json']);
    expect(json.code).toBe(1);
    expect(json.json()).toMatchObject({ tool: 'test:weather_lookup', status: 'tool_error', error: { message: expect.stringContaining('Oslo') } });
  });

  it('exits 4 when the server refuses the arguments, listing each field to fix', async () => {
    const r = await cli(['run', 'local', 'data_json_to_csv', '--args', '{"json":"[]"}']);
    expect(r.code).toBe(EXIT_CODES.invalidArgument);
    expect(r.stderr).toContain('error invalid_argument: The arguments for local:data_json_to_csv do not match its input schema');
    expect(r.stderr).toContain('/data: missing required property "data"');
  });

  it('prints the error as the one JSON document with --json', async () => {
    const r = await cli(['run', 'local', 'math_calculate', '--arg', 'expression=1/0x', '--json']);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe('');
    expect(r.json()).toMatchObject({ exitCode: 4, error: { code: 'invalid_argument', violations: [{ field: '/expression' }] } });
  });

  it('prints status, content and structured output with --json', async () => {
    const r = await cli(['run', 'local', 'math_calculate', '--arg', 'expression=2^10', '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ tool: 'local:math_calculate', status: 'ok', content: [{ text: '1024' }], structured: { result: '1024' }, servedBy: 'local:math_calculate' });
  });

  it('prints the tool’s progress and log lines to stderr with --progress, the output alone on stdout', async () => {
    const r = await cli(['run', 'test', 'greet', '--arg', 'who=Ada', '--arg', 'times:=2', '--progress']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('hello Ada\nhello Ada\n');
    // The first update goes at once; the rest, coalesced, just before the result.
    expect(r.stderr).toBe('progress: 1/2 (50%) greeting Ada\nprogress: 2/2 (100%) greeting Ada\nlog: greeted Ada 2 times\n');
    const quiet = await cli(['run', 'test', 'greet', '--arg', 'who=Ada']);
    expect(quiet.stderr).toBe('');
  });

  it('exits 5 when the tool does not finish within --timeout, saying what to change', async () => {
    const started = Date.now();
    const r = await cli(['run', 'test', 'slow_report', '--timeout', '200']);
    expect(r.code).toBe(EXIT_CODES.unavailable);
    expect(r.stderr).toMatch(/^error timeout: /);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('exits 3 for a tool that does not exist', async () => {
    const r = await cli(['run', 'local', 'file_reed', '--arg', 'path=welcome.txt']);
    expect(r.code).toBe(EXIT_CODES.notFound);
    expect(r.stderr).toContain('file_read');
  });

  it('exits 2 for --args that is not a JSON object, before sending anything', async () => {
    const bad = await cli(['run', 'test', 'greet', '--args', '{who:1}']);
    expect(bad.code).toBe(EXIT_CODES.usage);
    expect(bad.stderr).toMatch(/^error usage: --args is not valid JSON/);
    const array = await cli(['run', 'test', 'greet', '--args', '[1]']);
    expect(array.stderr).toContain('must be a JSON object');
    const pair = await cli(['run', 'test', 'greet', '--arg', 'who']);
    expect(pair.code).toBe(2);
  });
});

describe('toolhub search', () => {
  it('ranks the matching tool first', async () => {
    const r = await cli(['search', 'convert', 'json', 'to', 'csv']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^SCORE\s+TOOL\s+PATH\s+SUMMARY$/);
    expect(r.stdout.split('\n')[1]).toMatch(/^\s*1\.00\s+local:data_json_to_csv\s+data\s+Convert JSON records/);
    expect(r.stderr).toContain('next: toolhub info local:data_json_to_csv');
  });

  it('merges several queries (-q) and honours --provider and --limit', async () => {
    const r = await cli(['search', 'greet someone', '-q', 'weather', '--provider', 'test', '--limit', '5', '--json']);
    const doc = r.json<{ queries: string[]; hits: { id: string }[] }>();
    expect(doc.queries).toEqual(['greet someone', 'weather']);
    expect(doc.hits.map((h) => h.id).sort()).toEqual(['test:greet', 'test:weather_lookup']);
  });

  it('says which mode answered and why, in text and --json, and refuses an unknown --mode', async () => {
    // This hub's registry has no embeddings endpoint: a hybrid request is answered by keywords, with the reason.
    const text = await cli(['search', '--mode', 'hybrid', 'convert', 'json', 'to', 'csv']);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[1]).toMatch(/local:data_json_to_csv/);
    expect(text.stderr).toMatch(/^mode: lexical \(asked: hybrid\) — Semantic search is not configured on this registry \(no embeddings endpoint\); answered by keywords\.$/m);
    const plain = await cli(['search', 'convert', 'json', 'to', 'csv']);
    expect(plain.stderr).toMatch(/^mode: lexical$/m);
    const json = await cli(['search', '--mode', 'semantic', 'convert json to csv', '--json']);
    const doc = json.json<{ mode: string; requestedMode: string; note: string; hits: { id: string }[] }>();
    expect(doc).toMatchObject({ mode: 'lexical', requestedMode: 'semantic' });
    expect(doc.note).toContain('no embeddings endpoint');
    expect(doc.hits[0]!.id).toBe('local:data_json_to_csv');
    const bad = await cli(['search', '--mode', 'fuzzy', 'x']);
    expect(bad.code).toBe(EXIT_CODES.usage);
    expect(bad.stderr).toContain('--mode must be one of lexical, semantic, hybrid; got "fuzzy"');
  });

  it('exits 0 with a note when nothing matches, and 2 without words', async () => {
    const none = await cli(['search', 'qqqxxyyzz']);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('no tools matched "qqqxxyyzz"');
    expect((await cli(['search'])).code).toBe(EXIT_CODES.usage);
  });
});

describe('toolhub stats', () => {
  beforeAll(async () => {
    for (let i = 0; i < 3; i++) await cli(['run', 'test', 'greet', '--arg', 'who=stats']);
    await eventually(async () => ((await hub.store.getToolStats('test:greet'))?.calls ?? 0) >= 3, 'three calls counted');
  });

  it('lists tools busiest first, with success rate and failures', async () => {
    const r = await cli(['stats', '--provider', 'test']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^TOOL\s+CALLS\s+OK\s+P50\s+P95\s+LAST CALL\s+FAILURES$/);
    expect(r.stdout).toMatch(/^test:greet\s+\d+\s+100%/m);
  });

  it('shows one tool in detail, and as JSON', async () => {
    const r = await cli(['stats', 'test:greet']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {2}calls\s+\d+ \(\d+ ok, 0 failed\)$/m);
    const json = await cli(['stats', 'test:greet', '--json']);
    expect(json.json<{ stats: { toolId: string; calls: number } }>().stats).toMatchObject({ toolId: 'test:greet' });
  });

  it('exits 3 for a tool the registry does not know and 2 for a bad --sort', async () => {
    expect((await cli(['stats', 'test:nope'])).code).toBe(EXIT_CODES.notFound);
    const sort = await cli(['stats', '--sort', 'fastest']);
    expect(sort.code).toBe(EXIT_CODES.usage);
    expect(sort.stderr).toContain('expected one of calls, recency, failure_rate, latency');
  });
});

describe('toolhub preload', () => {
  it('shows, sets with the expected revision, refuses a stale revision, and clears', async () => {
    const empty = await cli(['preload', 'show']);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain('revision 0 (never set)');

    const set = await cli(['preload', 'set', 'local:file_read', 'test:greet', '--expected-revision', '0', '--comment', 'first cut']);
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/^revision 1 · changed by ops-alice just now · "first cut"\n1 {2}local:file_read\n2 {2}test:greet\n$/);

    // Someone else edits revision 1 first; our edit of revision 1 is then refused.
    expect((await cli(['preload', 'set', 'test:greet', 'local:file_read', '--expected-revision', '1', '--by', 'bob'])).code).toBe(0);
    const stale = await cli(['preload', 'set', 'local:file_read', '--expected-revision', '1']);
    expect(stale.code).toBe(EXIT_CODES.other);
    expect(stale.stderr).toMatch(/^error failed_precondition: The preload list changed since you read it/);

    const shown = await cli(['preload', 'show', '--json']);
    expect(shown.json()).toMatchObject({ list: { toolIds: ['test:greet', 'local:file_read'], revision: 2, changedBy: 'bob' } });

    const cleared = await cli(['preload', 'set', '--clear', '--expected-revision', '2', '--by', 'bob']);
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toContain('changed by bob');
  });

  it('refuses ids of tools the registry does not have (exit 3) unless --force, and malformed ids (exit 2)', async () => {
    const before = (await cli(['preload', 'show', '--json'])).json<{ list: { revision: number } }>().list.revision;
    const missing = await cli(['preload', 'set', 'local:file_read', 'test:nope']);
    expect(missing.code).toBe(EXIT_CODES.notFound);
    expect(missing.stderr).toContain('The registry has no tool test:nope; the preload list was not changed');
    expect((await cli(['preload', 'show', '--json'])).json<{ list: { revision: number } }>().list.revision).toBe(before);
    const forced = await cli(['preload', 'set', 'test:later', '--force', '--json']);
    expect(forced.code).toBe(0);
    expect(forced.json()).toMatchObject({ list: { toolIds: ['test:later'] } });
    const malformed = await cli(['preload', 'set', 'file_read']);
    expect(malformed.code).toBe(EXIT_CODES.usage);
    expect(malformed.stderr).toContain('preload ids are <provider:name>');
    expect((await cli(['preload', 'set'])).code).toBe(EXIT_CODES.usage);
  });

  it('suggests called tools and prints the command that would apply them', async () => {
    await cli(['run', 'test', 'greet', '--arg', 'who=suggest']);
    await eventually(async () => ((await hub.store.getToolStats('test:greet'))?.calls ?? 0) >= 1, 'a call counted');
    const r = await cli(['preload', 'suggest']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\s*\d\.\d\d\s+test:greet\s+\d+\s+100%/m);
    expect(r.stderr).toMatch(/toolhub preload set .*test:greet.* --expected-revision \d+/);
  });
});

describe('toolhub, as a whole', () => {
  it('exits 2 for an unknown command or option, suggesting the right one', async () => {
    const r = await cli(['lst']);
    expect(r.code).toBe(EXIT_CODES.usage);
    expect(r.stderr).toContain("unknown command 'lst'");
    expect(r.stderr).toContain('(Did you mean ls?)');
    expect((await cli(['ls', '--bogus'])).code).toBe(2);
    expect((await cli([])).code).toBe(2);
  });

  it('prints help with the exit codes, exit 0', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Exit codes:');
    expect(r.stdout).toContain('5  unavailable or timed out');
  });

  it('exits 5 and says how to start ToolHub when nothing listens at the address', async () => {
    const port = await closedPort();
    const r = await cli(['ls', '--address', `127.0.0.1:${port}`]);
    expect(r.code).toBe(EXIT_CODES.unavailable);
    expect(r.stderr).toContain(`error unavailable: cannot reach the ToolHub agent API at 127.0.0.1:${port} (connect ECONNREFUSED`);
    expect(r.stderr).toContain('Start it with `npm start`');
    const admin = await cli(['preload', 'show', '--admin-address', `127.0.0.1:${port}`, '--json']);
    expect(admin.code).toBe(5);
    expect(admin.json()).toMatchObject({ exitCode: 5, error: { code: 'unavailable', hint: expect.stringContaining('--admin-address or TOOLHUB_ADMIN_ADDRESS') } });
  });

  it('exits 2 for an address that is not host:port', async () => {
    const r = await cli(['ls', '--address', 'localhost']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--address (or TOOLHUB_ADDRESS) must be host:port');
  });
});

describe('toolhub audit', () => {
  it('lists the admin changes the registry recorded, newest first, filterable by target', async () => {
    expect((await cli(['preload', 'set', 'local:file_read', '--force', '--comment', 'audit me'])).code).toBe(0);
    const res = await cli(['audit', 'preload', '--json']);
    expect(res.code).toBe(0);
    const entries = res.json<{ entries: Array<{ principal: string; action: string; target: string; afterJson: string; comment: string }> }>().entries;
    expect(entries[0]).toMatchObject({ principal: 'local', action: 'SetPreloadList', target: 'preload', comment: 'audit me' });
    expect(JSON.parse(entries[0]!.afterJson)).toMatchObject({ toolIds: ['local:file_read'] });
    expect(entries.every((e) => e.target === 'preload')).toBe(true);
    const table = await cli(['audit']);
    expect(table.stdout).toMatch(/WHEN +WHO +ACTION +TARGET/);
    expect(table.stdout).toContain('SetPreloadList');
  });
});

describe('toolhub learned', () => {
  it('lists which tool an agent ran after which query, with its weight and the bounds, as a table and as JSON', async () => {
    const none = await cli(['learned', '--provider', 'test']);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('Nothing learned yet for test');

    // An agent searches, then runs what it found with the search id (as the agent kit does).
    const agent = await ToolHubAgentClient.connect(hub.address, { caller: 'agent-learned' });
    try {
      const found = await agent.searchTools({ queries: ['greet someone by name'], provider: 'test' });
      expect(found.hits[0]?.id).toBe('test:greet');
      await agent.runTool({ provider: 'test', name: 'greet', arguments: { who: 'learner' }, searchId: found.searchId });
    } finally {
      agent.close();
    }
    // Learned once the run's event is counted (batched): wait for it, bounded.
    await eventually(async () => (await cli(['learned', '--provider', 'test', '--json'])).json<{ total: number }>().total > 0, 'the registry to learn from the run', 15_000);

    const table = await cli(['learned', '--provider', 'test']);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^WHEN\s+TOOL\s+WEIGHT\s+QUERY$/);
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^\d{4}-\d\d-\d\dT\S+Z\s+test:greet\s+1\.00\s+greet someone by name$/)]);
    expect(table.stderr).toContain('1 learned pair of test held (at most 2000 per provider; weight halves every 7 d; lifts a tool\'s score by at most ×1.5)');

    const json = (await cli(['learned', '--json', '--limit', '5'])).json<Record<string, unknown>>();
    expect(json).toMatchObject({ enabled: true, maxPerProvider: 2000, halfLifeMs: 7 * 24 * 3600_000, maxBoost: 0.5 });
    expect(json['entries']).toContainEqual({ query: 'greet someone by name', toolId: 'test:greet', provider: 'test', name: 'greet', atUnixMs: expect.any(Number), weight: expect.any(Number) });
    expect((await cli(['learned', '--limit', '0'])).code).toBe(EXIT_CODES.usage);
  });

  it('says so when learning from use is switched off', async () => {
    const off = await startTestHub({ searchLearning: false });
    try {
      const run = cliRunner({ TOOLHUB_ADDRESS: off.address, TOOLHUB_ADMIN_ADDRESS: off.adminAddress });
      const r = await run(['learned']);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('Learning from use is switched off');
      expect((await run(['learned', '--json'])).json()).toMatchObject({ enabled: false, total: 0, entries: [], maxPerProvider: 0 });
    } finally {
      await off.close();
    }
  });
});
