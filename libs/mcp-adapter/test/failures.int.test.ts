/**
 * Servers that cannot start: the agent gets an error it can act on (unavailable, retry later), the
 * adapter backs off instead of respawning in a loop, and the other servers keep working.
 */
import { ToolHubError } from '@toolhub/contracts';
import { waitFor } from '@toolhub/test-harness';

import { createMcpAdapter, type McpAdapter, parseMcpConfig } from '../src';
import { childProcesses, FIXTURE_SERVER, recordingLogger, runContext, textOf } from './support';

jest.setTimeout(60_000);

const API_KEY = 'broken-server-api-key-0xdeadbeef';

describe('MCP adapter with a server that cannot start', () => {
  const logger = recordingLogger();
  let adapter: McpAdapter;

  beforeAll(() => {
    const crash = 'console.error("boom: key " + process.env.API_KEY + " rejected"); process.exit(2)';
    const config = parseMcpConfig(
      [
        'servers:',
        `  - { alias: broken, transport: stdio, command: node, args: ["-e", ${JSON.stringify(crash)}], env: { API_KEY: "${API_KEY}" } }`,
        '  - { alias: missing, transport: stdio, command: /nonexistent/mcp-server }',
        `  - { alias: fx, transport: stdio, command: node, args: ["${FIXTURE_SERVER}"] }`,
      ].join('\n'),
    );
    adapter = createMcpAdapter(config, { logger, backoff: { initialMs: 300, maxMs: 2000 } });
  });

  afterAll(() => adapter.close());

  it('answers calls to its tools with unavailable, quoting its stderr without secrets', async () => {
    const err = await adapter.runTool('broken_anything', {}, runContext(10_000)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolHubError);
    expect((err as ToolHubError).code).toBe('unavailable');
    expect((err as ToolHubError).retryable).toBe(true);
    expect((err as ToolHubError).message).toMatch(/MCP server "broken" could not be reached: .*boom: key \[REDACTED\] rejected/);
    const missing = await adapter.getToolInfo('missing_tool').catch((e: unknown) => e);
    expect((missing as ToolHubError).code).toBe('unavailable');
    expect((missing as ToolHubError).message).toMatch(/ENOENT/);
  });

  it('fails fast while backing off instead of respawning on every call', async () => {
    const err = (await adapter.getToolInfo('broken_anything').catch((e: unknown) => e)) as ToolHubError;
    expect(err.code).toBe('unavailable');
    expect(err.retryAfterMs).toBeGreaterThan(0);
    expect(err.message).toMatch(/ToolHub retries in \d+ s/);
  });

  it('keeps serving the other servers and reports the failing ones in health', async () => {
    expect((await adapter.catalog()).every((t) => t.name.startsWith('fx_'))).toBe(true);
    expect(textOf(await adapter.runTool('fx_pid', {}, runContext(5000)))).toMatch(/^\d+$/);
    const health = await adapter.health!();
    expect(health.healthy).toBe(false);
    // Between background retries a failing server is backing off; during one (every ≤ 2 s here) it is connecting.
    expect(health.detail).toMatch(/broken: (backoff|connecting)\b.*missing: (backoff|connecting)\b.*fx: ready/);
  });

  it('keeps retrying in the background with growing delays, leaving no process behind', async () => {
    await waitFor(() => logger.lines.filter((l) => l.msg === 'MCP server connection failed' && (l.fields as { alias?: string }).alias === 'broken').length >= 3, { timeoutMs: 15_000 });
    const delays = logger.lines.filter((l) => l.msg === 'MCP server connection failed' && (l.fields as { alias?: string }).alias === 'broken').map((l) => (l.fields as { retryInMs: number }).retryInMs);
    expect(delays[2]!).toBeGreaterThan(delays[0]!);
    expect(childProcesses().filter((c) => c.args.includes('boom'))).toEqual([]);
    expect(logger.text()).not.toContain(API_KEY);
  });
});
