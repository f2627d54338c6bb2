import { RequestFlush } from '../src/request-flush';

/** Resolves in the check phase of the next event-loop turn, after the setImmediates queued before it. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Defers one request per name; records each name when its request is sent. */
function burst(flush: RequestFlush, names: string[], sent: string[]): void {
  for (const name of names) void flush.defer(async () => void sent.push(name));
}

describe('RequestFlush', () => {
  it('sends nothing during the turn, then every request of the turn together with perTurn 0', async () => {
    const flush = new RequestFlush(0);
    const sent: string[] = [];
    burst(flush, ['a', 'b', 'c', 'd'], sent);
    expect(sent).toEqual([]);
    expect(flush.queued).toBe(4);
    await nextTurn();
    expect(sent).toEqual(['a', 'b', 'c', 'd']);
    expect(flush.queued).toBe(0);
  });

  it('sends perTurn requests at the end of the turn and the rest perTurn per later turn, in arrival order', async () => {
    const flush = new RequestFlush(2);
    const sent: string[] = [];
    burst(flush, ['a', 'b', 'c', 'd', 'e'], sent);
    await nextTurn();
    expect(sent).toEqual(['a', 'b']);
    expect(flush.queued).toBe(3);
    await nextTurn();
    expect(sent).toEqual(['a', 'b', 'c', 'd']);
    await nextTurn();
    expect(sent).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(flush.queued).toBe(0);
  });

  it('queues a new request behind those still waiting', async () => {
    const flush = new RequestFlush(1);
    const sent: string[] = [];
    burst(flush, ['a', 'b', 'c'], sent);
    await nextTurn();
    expect(sent).toEqual(['a']);
    burst(flush, ['d'], sent);
    await nextTurn();
    await nextTurn();
    await nextTurn();
    expect(sent).toEqual(['a', 'b', 'c', 'd']);
  });

  it('sends a request at once when the caller has none other in flight and none is waiting', async () => {
    const flush = new RequestFlush(8);
    const sent: string[] = [];
    void flush.defer(async () => void sent.push('alone'), true);
    expect(sent).toEqual(['alone']);
    expect(flush.queued).toBe(0);
  });

  it('queues an "alone" request behind those already waiting, keeping arrival order', async () => {
    const flush = new RequestFlush(8);
    const sent: string[] = [];
    burst(flush, ['a', 'b'], sent);
    void flush.defer(async () => void sent.push('late'), true);
    expect(sent).toEqual([]);
    await nextTurn();
    expect(sent).toEqual(['a', 'b', 'late']);
  });

  it('turns a synchronous throw of an "alone" send into a rejection', async () => {
    const flush = new RequestFlush(8);
    await expect(
      flush.defer(() => {
        throw new Error('sync throw');
      }, true),
    ).rejects.toThrow('sync throw');
  });

  it('passes the send’s result and failure through', async () => {
    const flush = new RequestFlush(8);
    await expect(flush.defer(async () => 42)).resolves.toBe(42);
    await expect(flush.defer(async () => Promise.reject(new Error('no responders')))).rejects.toThrow('no responders');
    await expect(
      flush.defer(() => {
        throw new Error('sync throw');
      }),
    ).rejects.toThrow('sync throw');
  });

  it('refuses a perTurn that is not a whole number ≥ 0', () => {
    expect(() => new RequestFlush(-1)).toThrow(/requestsPerTurn must be a whole number ≥ 0, got -1/);
    expect(() => new RequestFlush(1.5)).toThrow(/got 1.5/);
  });
});
