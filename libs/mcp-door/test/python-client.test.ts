/**
 * Interop through the Python `mcp` client from PyPI (installed into a venv by scripts/mcp-python.sh;
 * the test fails, never skips, when it cannot be installed): the same scenario as the TS clients.
 */
import { waitFor } from '@toolhub/test-harness';

import { AGENT_KEY, type DoorStack, startDoorStack } from './support/door-stack';
import { mcpPython, runInterop } from './support/python-interop';

describe('the MCP door through the Python mcp client', () => {
  let stack: DoorStack;
  let python: string;

  beforeAll(async () => {
    python = mcpPython();
    stack = await startDoorStack();
  }, 320_000);
  afterAll(() => stack?.close());

  it('searches, loads (list_changed), calls typed, is refused a hidden tool and cancels a slow call', async () => {
    const { code, out } = await runInterop(python, 'interop.py', { DOOR_URL: stack.door.address, DOOR_KEY: AGENT_KEY });
    expect({ code, out }).toMatchObject({ code: 0 });
    expect(out).toContain('DONE');
    expect(out).toContain('ok: hidden tool refused');
    // The Python SDK's timeout sent notifications/cancelled: the run was ended at the adapter.
    await waitFor(() => stack.slow.signal?.aborted);
  }, 120_000);
});
