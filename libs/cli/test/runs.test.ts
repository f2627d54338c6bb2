/** `toolhub run --async` and `toolhub runs ls|get|watch|cancel` in-process against a whole ToolHub (see support/toolhub.ts). */
import { EXIT_CODES } from '@toolhub/cli';
import { waitFor } from '@toolhub/test-harness';

import { type CliResult, cliRunner } from './support/run-cli';
import { startTestHub, type TestHub } from './support/toolhub';

jest.setTimeout(30_000);

let hub: TestHub;
let cli: (args: string[]) => Promise<CliResult>;

beforeAll(async () => {
  hub = await startTestHub();
  cli = cliRunner({ TOOLHUB_ADDRESS: hub.address, TOOLHUB_ADMIN_ADDRESS: hub.adminAddress });
});

afterAll(async () => {
  await hub.close();
});

describe('toolhub run --async and toolhub runs', () => {
  it('starts a run, prints its id, watches it to the end and gets its result; runs ls lists it', async () => {
    const started = await cli(['run', 'test', 'greet', '--arg', 'who=async', '--async']);
    expect(started.code).toBe(EXIT_CODES.ok);
    const id = started.stdout.trim();
    expect(id).toMatch(/^run_[0-9a-z]+$/);
    const watched = await cli(['runs', 'watch', id]);
    expect(watched.code).toBe(EXIT_CODES.ok);
    expect(watched.stdout).toBe('hello async\n');
    expect(watched.stderr).toContain('succeeded');
    const got = await cli(['runs', 'get', id, '--json']);
    expect(got.code).toBe(EXIT_CODES.ok);
    expect(got.json()).toMatchObject({ runId: id, state: 'succeeded', tool: 'test:greet', attempts: 1, result: { status: 'ok', content: [{ text: 'hello async' }] } });
    const listed = await cli(['runs', 'ls', '--json']);
    expect(listed.json<{ runs: Array<{ runId: string }> }>().runs.map((r) => r.runId)).toContain(id);
    const table = await cli(['runs', 'ls', '--state', 'succeeded']);
    expect(table.stdout).toContain(id);
  });

  it('cancels a running run: the tool is stopped and the run ends cancelled (exit 6 from runs get)', async () => {
    const started = await cli(['run', 'test:slow_report', '--async', '--timeout', '60000', '--json']);
    const id = started.json<{ runId: string }>().runId;
    await waitFor(async () => (await cli(['runs', 'get', id, '--json'])).json<{ state: string }>().state === 'running', { message: 'the run to start' });
    const cancelled = await cli(['runs', 'cancel', id, '--reason', 'cli test']);
    expect(cancelled.code).toBe(EXIT_CODES.ok);
    await waitFor(async () => (await cli(['runs', 'get', id, '--json'])).json<{ state: string }>().state === 'cancelled', { message: 'the run to end cancelled' });
    const got = await cli(['runs', 'get', id]);
    expect(got.code).toBe(EXIT_CODES.other);
    expect(got.stderr).toContain('cli test');
  });

  it('refuses --progress with --async (exit 2) and says to follow the run with runs watch; nothing is started', async () => {
    const before = (await cli(['runs', 'ls', '--json'])).json<{ runs: unknown[] }>().runs.length;
    const got = await cli(['run', 'test', 'greet', '--arg', 'who=both', '--async', '--progress']);
    expect(got.code).toBe(EXIT_CODES.usage);
    expect(got.stderr).toContain('--progress and --async do not combine');
    expect(got.stderr).toContain('toolhub runs watch <run-id>');
    expect(got.stdout).toBe('');
    expect((await cli(['runs', 'ls', '--json'])).json<{ runs: unknown[] }>().runs).toHaveLength(before);
  });

  it('an unknown run id is not found (exit 3) with a message that says what to do', async () => {
    const got = await cli(['runs', 'get', 'run_nope']);
    expect(got.code).toBe(EXIT_CODES.notFound);
    expect(got.stderr).toContain('ListRuns');
  });
});
