/**
 * Search has no fallback: a busy registry is waited for (searchTimeoutMs, 10 s by default, within
 * the caller's deadline) rather than answered with a timeout after the 2 s of tool-info lookups.
 */
import { okReply } from '@toolhub/adapter-sdk';
import { registrySubject, SearchMode, SearchToolsResponse } from '@toolhub/contracts';
import { Metadata } from '@grpc/grpc-js';
import { setTimeout as sleep } from 'node:timers/promises';

import { startLocalStack, type LocalStack } from './support/local-stack';

describe('registry requests that nothing else can answer', () => {
  let stack: LocalStack;
  afterEach(async () => {
    await stack?.close();
  });

  const search = (deadlineMs: number) =>
    new Promise<SearchToolsResponse>((resolve, reject) =>
      stack.client.raw.searchTools({ queries: ['anything'], provider: '', path: '', limit: 5, mode: 0, explain: false }, new Metadata(), { deadline: new Date(Date.now() + deadlineMs) }, (err, res) =>
        err ? reject(err) : resolve(res),
      ),
    );

  /** A registry whose search answers after `delayMs`. */
  const slowRegistry = (delayMs: number) =>
    stack.bus.serve(registrySubject('search'), async () => {
      await sleep(delayMs);
      return okReply(SearchToolsResponse.encode({ hits: [], suggestions: [], searchId: 's1', mode: SearchMode.SEARCH_MODE_LEXICAL, note: 'slow but here' }).finish());
    });

  it('waits past the 2 s of info lookups for a search the registry answers late', async () => {
    stack = await startLocalStack([], { warmCoreTools: false });
    await slowRegistry(2_500);
    const res = await search(30_000);
    expect(res.note).toBe('slow but here');
  });

  it('still ends at searchTimeoutMs, saying the registry did not answer', async () => {
    stack = await startLocalStack([], { warmCoreTools: false, searchTimeoutMs: 300 });
    await slowRegistry(5_000);
    await expect(search(30_000)).rejects.toMatchObject({ details: expect.stringMatching(/registry did not answer within 300 ms/) });
  });
});
