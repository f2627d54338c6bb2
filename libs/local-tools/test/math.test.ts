import { createMathTools, MathEngine } from '../src';
import { call, callError, ctx, data, pick, textOf } from './helpers';

const engine = MathEngine.create({ timeoutMs: 1500, maxMemoryMb: 96 });
const calc = pick(createMathTools({ engine }), 'math_calculate');

afterAll(() => engine.close());

// The first call starts the worker thread (about a second), so the suite allows more time.
jest.setTimeout(20_000);

describe('math_calculate', () => {
  it('evaluates arithmetic with a real parser', async () => {
    const result = await call(calc, { expression: 'sqrt(3^2 + 4^2) * 2' });
    expect(textOf(result)).toBe('10');
    expect(data(result)).toEqual({ expression: 'sqrt(3^2 + 4^2) * 2', result: '10', type: 'number', value: 10 });
  });

  it('converts units and reports the value in the shown unit', async () => {
    const result = await call(calc, { expression: '5 km to mile' });
    expect(textOf(result)).toBe('3.1068559611867 mile');
    expect(data(result)).toMatchObject({ type: 'Unit', unit: 'mile' });
    expect(data(result)['value']).toBeCloseTo(3.10685596, 6);
  });

  it('combines units into derived ones', async () => {
    expect(textOf(await call(calc, { expression: '12.5 kg * 9.81 m/s^2' }))).toBe('122.625 N');
  });

  it('uses variables, including value expressions with units', async () => {
    expect(textOf(await call(calc, { expression: 'price * (1 + vat)', variables: { price: 120, vat: 0.2 } }))).toBe('144');
    expect(textOf(await call(calc, { expression: 'm * 2 to g', variables: { m: '1.5 kg' } }))).toBe('3000 g');
  });

  it('returns the last value of several statements', async () => {
    expect(textOf(await call(calc, { expression: 'a = 3; b = 4; hypot(a, b)' }))).toBe('5');
  });

  it('handles matrices and complex numbers', async () => {
    expect(textOf(await call(calc, { expression: 'det([1, 2; 3, 4])' }))).toBe('-2');
    expect(textOf(await call(calc, { expression: 'sqrt(-4)' }))).toBe('2i');
  });

  it('honours the precision argument', async () => {
    expect(textOf(await call(calc, { expression: 'pi', precision: 5 }))).toBe('3.1416');
  });

  it('gives the position of a syntax error with a caret', async () => {
    const err = await callError(calc, { expression: '2 * (3 + ' });
    expect(err.code).toBe('invalid_argument');
    expect(err.message).toMatch(/^Syntax error in the expression at character \d+: Unexpected end of expression\./);
    expect(err.message).toContain('\n  2 * (3 + \n');
    expect(err.violations[0]?.field).toBe('/expression');
  });

  it('suggests close function names for a typo', async () => {
    expect((await callError(calc, { expression: 'sqr(16)' })).message).toContain('did you mean sqrt');
  });

  it('explains how to supply an unknown symbol', async () => {
    const err = await callError(calc, { expression: 'x * 2' });
    expect(err.message).toContain('pass its value in variables, e.g. {"x": 2}');
  });

  it('reports mismatched units as the caller’s to fix', async () => {
    const err = await callError(calc, { expression: '5 kg + 3 m' });
    expect(err.code).toBe('invalid_argument');
    expect(err.message).toContain('Units do not match');
  });

  it('names the variable whose value failed', async () => {
    const err = await callError(calc, { expression: 'x', variables: { x: '5 parsecs per fortnight(' } });
    expect(err.violations[0]?.field).toBe('/variables/x');
  });
});

describe('math_calculate refuses abuse of the expression language', () => {
  it.each([
    ['import({sqrt: 1}, {override: true})', 'import'],
    ['evaluate("1 + 1")', 'evaluate'],
    ['parse("x")', 'parse'],
    ['compile("x")', 'compile'],
    ['createUnit("furlongish", "201 m")', 'createUnit'],
    ['simplify("2x + x")', 'simplify'],
    ['derivative("x^2", "x")', 'derivative'],
    ['config({number: "BigNumber"})', 'config'],
    ['typed("f", {"number": sqrt})', 'typed'],
  ])('refuses %s', async (expression, fn) => {
    const err = await callError(calc, { expression });
    expect(err.code).toBe('invalid_argument');
    expect(err.message).toContain(`The function ${fn}() is not available in math_calculate`);
  });

  it('refuses a disabled function reached through an alias', async () => {
    expect((await callError(calc, { expression: 'f = evaluate; f("1")' })).message).toContain('evaluate() is not available');
  });

  it('keeps the instance unchanged after a refused reconfiguration', async () => {
    await callError(calc, { expression: 'config({number: "BigNumber"})' });
    expect(data(await call(calc, { expression: '0.1 + 0.2' }))['type']).toBe('number');
  });

  it('does not reach JavaScript objects through property access', async () => {
    const err = await callError(calc, { expression: 'sqrt.constructor("return process")()' });
    expect(err.code).toBe('invalid_argument');
  });

  it('stops an expression that runs past its time budget, then keeps working', async () => {
    const err = await callError(calc, { expression: 'f(n) = n <= 0 ? 0 : f(n - 1) + f(n - 1); f(60)' });
    expect(err.code).toBe('failed');
    expect(err.message).toContain('took longer than 1500 ms');
    expect(err.retryable).toBe(false);
    expect(textOf(await call(calc, { expression: '1 + 1' }))).toBe('2');
  });

  it('stops an expression that needs too much memory, then keeps working', async () => {
    const err = await callError(calc, { expression: 'ones(6000, 6000)' });
    expect(err.code).toBe('failed');
    expect(textOf(await call(calc, { expression: '2 + 2' }))).toBe('4');
  });

  it('answers with timeout when the caller’s deadline is shorter than the budget', async () => {
    const err = await callError(calc, { expression: 'f(n) = n <= 0 ? 0 : f(n - 1) + f(n - 1); f(60)' }, ctx(300));
    expect(err.code).toBe('timeout');
  });

  it('refuses an overlong expression before evaluating it', async () => {
    const short = pick(createMathTools({ engine, maxExpressionLength: 100 }), 'math_calculate');
    const err = await callError(short, { expression: '1 + '.repeat(30) + '1' });
    expect(err.violations[0]).toMatchObject({ field: '/expression', expected: 'string (at least 1, at most 100 characters)' });
  });
});
