import { RequestPacer } from '../src/request-pacer';

/** Resolves in the check phase of the next event-loop turn, after the setImmediates queued before it. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Asks for `names.length` turns at once; records each name when its request may go. */
function burst(pacer: RequestPacer, names: string[], went: string[]): void {
  for (const name of names) {
    const paced = pacer.turn();
    if (paced) void paced.then(() => went.push(name));
    else went.push(name);
  }
}

describe('RequestPacer', () => {
  it('lets every request go at once with perTurn 0', () => {
    const pacer = new RequestPacer(0);
    const went: string[] = [];
    burst(pacer, ['a', 'b', 'c', 'd'], went);
    expect(went).toEqual(['a', 'b', 'c', 'd']);
    expect(pacer.queued).toBe(0);
  });

  it('lets perTurn requests go now and the rest perTurn per later turn, in arrival order', async () => {
    const pacer = new RequestPacer(2);
    const went: string[] = [];
    burst(pacer, ['a', 'b', 'c', 'd', 'e'], went);
    expect(went).toEqual(['a', 'b']);
    expect(pacer.queued).toBe(3);
    await nextTurn();
    expect(went).toEqual(['a', 'b', 'c', 'd']);
    await nextTurn();
    expect(went).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(pacer.queued).toBe(0);
  });

  it('counts afresh in a new turn once nothing waits', async () => {
    const pacer = new RequestPacer(2);
    const went: string[] = [];
    burst(pacer, ['a', 'b'], went);
    await nextTurn();
    burst(pacer, ['c', 'd', 'e'], went);
    expect(went).toEqual(['a', 'b', 'c', 'd']);
    await nextTurn();
    expect(went).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('queues a new request behind those still waiting, even in a new turn', async () => {
    const pacer = new RequestPacer(1);
    const went: string[] = [];
    burst(pacer, ['a', 'b', 'c', 'd'], went);
    await nextTurn();
    expect(went).toEqual(['a', 'b']);
    // A fresh turn's allowance does not let a newcomer pass c and d.
    burst(pacer, ['e'], went);
    expect(went).toEqual(['a', 'b']);
    await nextTurn();
    await nextTurn();
    await nextTurn();
    expect(went).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('refuses a perTurn that is not a whole number ≥ 0', () => {
    expect(() => new RequestPacer(-1)).toThrow(/perTurn must be a whole number ≥ 0, got -1/);
    expect(() => new RequestPacer(1.5)).toThrow(/got 1.5/);
  });
});
