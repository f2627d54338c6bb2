import { argumentBytes } from '../src/pool/input-size';

describe('argumentBytes', () => {
  it('counts about the JSON size of the arguments in UTF-8', () => {
    expect(argumentBytes({ text: 'abc' }, 1e6)).toBe(JSON.stringify({ text: 'abc' }).length);
    // é is 2 bytes, the CJK character 3, the emoji 4 (one surrogate pair).
    expect(argumentBytes({ t: 'é中👋' }, 1e6)).toBe(Buffer.byteLength(JSON.stringify({ t: 'é中👋' })));
    expect(argumentBytes({ rows: [{ a: 1 }, { a: 2 }], flag: true }, 1e6)).toBeGreaterThanOrEqual(JSON.stringify({ rows: [{ a: 1 }, { a: 2 }], flag: true }).length - 4);
  });

  it('stops at the limit, for long strings and for many small values', () => {
    expect(argumentBytes({ text: 'x'.repeat(1_000_000) }, 65_536)).toBe(65_536);
    expect(argumentBytes({ rows: Array.from({ length: 100_000 }, (_, i) => ({ i })) }, 65_536)).toBe(65_536);
    expect(argumentBytes({ text: 'x'.repeat(1000) }, 65_536)).toBeLessThan(65_536);
  });

  it('counts multi-byte text by its bytes, not its characters', () => {
    // 30,000 CJK characters are 90,000 bytes: past a 64 KiB threshold although under 64 Ki characters.
    expect(argumentBytes({ text: '中'.repeat(30_000) }, 65_536)).toBe(65_536);
  });
});
