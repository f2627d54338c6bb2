/**
 * The official MCP conformance suite (server side) against the door: every active scenario passes
 * or is in test/conformance/expected-failures.yaml with the reason it does not apply; the suite
 * itself fails on any other failure and on a listed scenario that passes.
 */
import { repoRoot } from '@toolhub/test-harness';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type DoorStack, startDoorStack } from './support/door-stack';

describe('the MCP conformance suite against the door', () => {
  let stack: DoorStack;
  let node: string;
  let cli: string;

  beforeAll(async () => {
    [node, cli] = execFileSync('bash', [join(repoRoot(__dirname), 'scripts/mcp-conformance.sh')], { encoding: 'utf8', timeout: 300_000, stdio: ['ignore', 'pipe', 'inherit'] }).trim().split(' ') as [string, string];
    // The suite's client sends no credentials: local mode, as `npm start` runs.
    stack = await startDoorStack({}, false);
  }, 320_000);
  afterAll(() => stack?.close());

  it('passes every scenario that applies', async () => {
    const out = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
    const child = spawn(node, [cli, 'server', '--url', stack.door.address, '--expected-failures', join(__dirname, 'conformance/expected-failures.yaml'), '-o', out], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    // 'close', not 'exit': the output's last chunks can arrive after the exit.
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const summary = log.slice(log.indexOf('=== SUMMARY ==='));
    expect({ code, summary }).toEqual({ code: 0, summary: expect.stringContaining('server-initialize: 1 passed, 0 failed') });
    for (const s of ['tools-list', 'ping', 'logging-set-level', 'dns-rebinding-protection', 'server-sse-multiple-streams']) expect(summary).toMatch(new RegExp(`✓ ${s}: \\d+ passed, 0 failed`));
  }, 180_000);
});
