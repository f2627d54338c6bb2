import { ArgumentValidator } from '../src';

describe('bounded validation work', () => {
  it('rejects a call with thousands of unknown properties by describing only the first ones, repairing nothing', () => {
    const v = new ArgumentValidator();
    const args: Record<string, unknown> = { count: '5' };
    for (let i = 0; i < 5000; i++) args[`unknown_${i}`] = 'x';
    const schema = { type: 'object', properties: { count: { type: 'integer' } }, additionalProperties: false };
    let err: { message: string; violations: unknown[]; fixes: unknown[] } | undefined;
    try {
      v.validateAndRepair('t', '1', schema, args);
    } catch (e) {
      err = e as typeof err;
    }
    expect(err?.message).toContain('(5001 validation errors in all: only the first 200 were examined and nothing was repaired)');
    expect(err?.message).toMatch(/do not match its input schema \(5001 problems\)/);
    expect(err?.violations).toHaveLength(50);
    expect(err?.fixes).toEqual([]);
  });

  it('still repairs and renames when the call is near its schema', () => {
    const v = new ArgumentValidator();
    const schema = { type: 'object', properties: { max_count: { type: 'integer' } }, additionalProperties: false };
    const res = v.validateAndRepair('t', '1', schema, { maxCount: '5' });
    expect(res.args).toEqual({ max_count: 5 });
  });
});
