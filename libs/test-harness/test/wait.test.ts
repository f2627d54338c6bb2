import { waitFor } from '../src/index';

describe('waitFor', () => {
  it('returns the first truthy value the predicate produces', async () => {
    let calls = 0;
    const value = await waitFor(() => (++calls >= 3 ? `after ${calls}` : undefined), { intervalMs: 1 });
    expect(value).toBe('after 3');
  });

  it('awaits async predicates', async () => {
    await expect(waitFor(async () => 42)).resolves.toBe(42);
  });

  it('times out with an error naming what it waited for, keeping the last failure as cause', async () => {
    const err = await waitFor(
      () => {
        throw new Error('not yet');
      },
      { timeoutMs: 50, intervalMs: 5, message: 'the answer' },
    ).catch((e: unknown) => e as Error);
    expect(err.message).toBe('timed out after 50 ms waiting for the answer');
    expect((err.cause as Error).message).toBe('not yet');
  });
});
