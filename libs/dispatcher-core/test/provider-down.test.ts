/** RunTool on a known tool whose provider has no live replica: UNAVAILABLE with since-when, not NOT_FOUND. */
import { status } from '@grpc/grpc-js';
import { textResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import { RunStatus } from '@toolhub/contracts';

import { failure, type TestClient } from './support/grpc-client';
import { type LocalStack, startLocalStack } from './support/local-stack';

const tools: ToolDefinition<never>[] = [{ name: 'echo_text', path: 'text', description: 'Echoes a text.', inputSchema: { type: 'object' }, run: async () => textResult('echo') }];

describe('a provider that went down', () => {
  let stack: LocalStack;
  let client: TestClient;

  beforeAll(async () => {
    stack = await startLocalStack(tools, { retryBaseMs: 5, warmCoreTools: false });
    client = stack.client;
  });
  afterAll(() => stack.close());

  it('answers UNAVAILABLE naming since when, for a tool it knew, once the last replica stopped', async () => {
    expect((await client.runTool({ provider: 'local', name: 'echo_text' })).status).toBe(RunStatus.RUN_STATUS_OK);
    const before = Date.now();
    await stack.adapter.close();
    const err = await failure(client.runTool({ provider: 'local', name: 'echo_text' }));
    expect(err.code).toBe(status.UNAVAILABLE);
    expect(err.details).toMatch(/^Provider "local" has no live replica since (\S+), so local:echo_text cannot run now\. Retry later/);
    const since = Date.parse(/since (\S+),/.exec(err.details)![1]!);
    expect(since).toBeGreaterThanOrEqual(before - 1000);
  });
});
