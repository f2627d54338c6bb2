/**
 * Interop through the Python `mcp` client from PyPI (installed into a venv by scripts/mcp-python.sh;
 * the test fails, never skips, when it cannot be installed): the same scenario as the TS clients.
 */
import { repoRoot, waitFor } from '@toolhub/test-harness';
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';

import { AGENT_KEY, type DoorStack, startDoorStack } from './support/door-stack';

describe('the MCP door through the Python mcp client', () => {
  let stack: DoorStack;
  let python: string;

  beforeAll(async () => {
    python = execFileSync('bash', [join(repoRoot(__dirname), 'scripts/mcp-python.sh')], { encoding: 'utf8', timeout: 300_000, stdio: ['ignore', 'pipe', 'inherit'] }).trim();
    stack = await startDoorStack();
  }, 320_000);
  afterAll(() => stack?.close());

  it('searches, loads (list_changed), calls typed, is refused a hidden tool and cancels a slow call', async () => {
    const child = spawn(python, [join(__dirname, 'python/interop.py')], { env: { ...process.env, DOOR_URL: stack.door.address, DOOR_KEY: AGENT_KEY }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect({ code, out }).toMatchObject({ code: 0 });
    expect(out).toContain('DONE');
    expect(out).toContain('ok: hidden tool refused');
    // The Python SDK's timeout sent notifications/cancelled: the run was ended at the adapter.
    await waitFor(() => stack.slow.signal?.aborted);
  }, 120_000);
});
