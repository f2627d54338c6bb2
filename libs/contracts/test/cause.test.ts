import { causeChain, findCause } from '../src';

class Inner extends Error {
  readonly code = 'inner';
}

describe('findCause', () => {
  it('finds an error wrapped by other errors and returns it typed', () => {
    const inner = new Inner('deep');
    const err = new Error('outer', { cause: new Error('middle', { cause: inner }) });
    const found = findCause(err, (e): e is Inner => e instanceof Inner);
    expect(found).toBe(inner);
    expect(found?.code).toBe('inner');
  });

  it('returns undefined when nothing in the chain matches, and for null or undefined input', () => {
    expect(findCause(new Error('a', { cause: new Error('b') }), (e): e is Inner => e instanceof Inner)).toBeUndefined();
    expect(findCause(undefined, () => true)).toBeUndefined();
    expect(findCause(null, () => true)).toBeUndefined();
  });

  it('stops after 8 links of a cyclic chain instead of looping', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(causeChain(a)).toEqual([a, b, a, b, a, b, a, b]);
  });
});
