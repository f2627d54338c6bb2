/**
 * Every adapter of the monorepo passes the conformance kit, run as its command
 * (`toolhub-adapter-conformance --nats URL --provider NAME`) against the adapter apps as their own
 * processes on a real nats-server: adapter-local, adapter-mcp (the reference "everything" MCP
 * server over stdio) and adapter-cloud (the Swagger Petstore document; list and info need no
 * upstream, so no Prism). A deliberately broken adapter fails, and the report names each rule.
 */
import { natsUrl, scratchDir, spawnProcess, type SpawnedProcess } from '@toolhub/test-harness';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

import type { ConformanceReport } from '@toolhub/adapter-conformance';

import { BROKEN_RULES } from '../../libs/adapter-conformance/test/fixtures/broken-adapter';
import { PETSTORE_DOCUMENT, startApp } from '../e2e/support/stack';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '../..');
const run = promisify(execFile);

/** Runs the kit's command; resolves with its exit code, the JSON report and stderr. */
async function conformance(nats: string, provider: string, extra: string[] = []): Promise<{ code: number; report: ConformanceReport; stderr: string }> {
  const args = ['--import', 'tsx', 'libs/adapter-conformance/src/bin.ts', '--nats', nats, '--provider', provider, '--json', ...extra];
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, report: JSON.parse(stdout) as ConformanceReport, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, report: JSON.parse(e.stdout || '{}') as ConformanceReport, stderr: e.stderr };
  }
}

const failures = (r: ConformanceReport) => r.results.filter((x) => x.status === 'fail').map((x) => `${x.id}: ${x.problems.join('; ')}`);
/** The rules that reported skip (they need a tool named on the command line, or control of the process). */
const skipped = (r: ConformanceReport) => r.results.filter((x) => x.status === 'skip').map((x) => x.id);

describe('the conformance kit against the monorepo adapters on NATS', () => {
  let nats: string;
  const procs: SpawnedProcess[] = [];

  beforeAll(async () => {
    nats = await natsUrl();
    const root = scratchDir('conformance-local');
    writeFileSync(join(root, 'notes.txt'), 'hello\n');
    const config = scratchDir('conformance-config');
    writeFileSync(join(config, 'mcp.yaml'), ['provider: mcp', 'servers:', '  - { alias: everything, transport: stdio, package: "@modelcontextprotocol/server-everything", args: [stdio], mount: demo/everything }', ''].join('\n'));
    writeFileSync(join(config, 'cloud.yaml'), ['provider: cloud', 'documents:', `  - { alias: petstore, source: "${PETSTORE_DOCUMENT}", baseUrl: "http://127.0.0.1:9", mount: demo/petstore }`, ''].join('\n'));
    procs.push(
      ...(await Promise.all([
        startApp('adapter-local', { NATS_URL: nats, TOOLHUB_LOCAL_ROOT: root }, /adapter-local ready/),
        startApp('adapter-mcp', { NATS_URL: nats, TOOLHUB_MCP_CONFIG: join(config, 'mcp.yaml') }, /adapter-mcp ready/),
        startApp('adapter-cloud', { NATS_URL: nats, TOOLHUB_CLOUD_CONFIG: join(config, 'cloud.yaml') }, /adapter-cloud ready/),
        spawnProcess(process.execPath, ['--import', 'tsx', 'test/conformance/broken-adapter-main.ts'], { cwd: ROOT, env: { NATS_URL: nats, PROVIDER: 'broken' }, readyPattern: /broken adapter ready/, timeoutMs: 30_000 }),
      ])),
    );
  }, 180_000);

  afterAll(async () => {
    for (const p of procs) await p.kill('SIGTERM');
  });

  it('passes adapter-local, running a tool for the run-shape and idempotency rules (3 rules skipped, named)', async () => {
    // A generous request timeout: the first math_calculate starts the CPU worker pool, slow on a loaded machine.
    const { code, report } = await conformance(nats, 'local', ['--timeout', '30000', '--run-tool', 'math_calculate', '--run-args', '{"expression":"2+3"}']);
    expect(failures(report)).toEqual([]);
    expect(code).toBe(0);
    expect(report.results.find((r) => r.id === 'idempotency')?.status).toBe('pass');
    expect(skipped(report)).toEqual(['deadline.honoured', 'results.large', 'drain']);
  });

  it('passes adapter-mcp with a real MCP server behind it (3 rules skipped, named)', async () => {
    const { code, report } = await conformance(nats, 'mcp', ['--timeout', '30000', '--run-tool', 'everything_echo', '--run-args', '{"message":"hi"}']);
    expect(failures(report)).toEqual([]);
    expect(code).toBe(0);
    expect(report.toolCount).toBeGreaterThan(5);
    expect(skipped(report)).toEqual(['deadline.honoured', 'results.large', 'drain']);
  });

  it('passes adapter-cloud over an OpenAPI document on the rules that run no tool (5 skipped, named)', async () => {
    const { code, report } = await conformance(nats, 'cloud');
    expect(failures(report)).toEqual([]);
    expect(code).toBe(0);
    expect(report.toolCount).toBeGreaterThanOrEqual(3);
    // No tool of the petstore document can run here (its base URL is a closed port): the rules that run one skip.
    expect(skipped(report)).toEqual(['deadline.honoured', 'run.shape', 'idempotency', 'results.large', 'drain']);
  });

  it('fails the broken adapter with exit code 1, naming each broken rule', async () => {
    const { code, report } = await conformance(nats, 'broken', ['--timeout', '2000', '--run-tool', 'twice', '--slow-tool', 'sleepy']);
    expect(code).toBe(1);
    expect(report.results.filter((r) => r.status === 'fail').map((r) => r.id)).toEqual(BROKEN_RULES);
  });

  it('prints a table naming the broken rules without --json', async () => {
    const out = await run(process.execPath, ['--import', 'tsx', 'libs/adapter-conformance/src/bin.ts', '--nats', nats, '--provider', 'broken', '--timeout', '2000'], { cwd: ROOT }).catch((e: { code: number; stdout: string }) => e);
    expect('code' in out ? out.code : 0).toBe(1);
    expect(out.stdout).toMatch(/^names\s+FAIL/m);
    expect(out.stdout).toContain('FAIL errors.not_found: an unknown tool');
  });

  it('exits 2 with usage when the provider is missing', async () => {
    const out = await run(process.execPath, ['--import', 'tsx', 'libs/adapter-conformance/src/bin.ts', '--nats', nats], { cwd: ROOT }).catch((e: { code: number; stderr: string }) => e);
    expect('code' in out ? out.code : 0).toBe(2);
    expect(out.stderr).toContain('--provider is required');
  });
});
