import { ArgumentValidator, type SchemaProblem } from '@toolhub/arguments';

function validatorWithProblems() {
  const problems: SchemaProblem[] = [];
  return { validator: new ArgumentValidator({ onSchemaProblem: (p) => problems.push(p) }), problems };
}

describe('schema patterns run in linear time', () => {
  it('checks a pattern that makes backtracking engines hang, without hanging', () => {
    // With JavaScript's engine, ^(a|a)*$ against 40 a's and a '!' takes longer than the test run.
    const schema = { type: 'object', properties: { id: { type: 'string', pattern: '^(a|a)*$' } } };
    const { validator, problems } = validatorWithProblems();
    expect(() => validator.validateAndRepair('x:evil', '1', schema, { id: `${'a'.repeat(40)}!` })).toThrow(/\/id/);
    expect(validator.validateAndRepair('x:evil', '1', schema, { id: 'a'.repeat(40) }).validated).toBe(true);
    expect(problems).toEqual([]);
  });

  it('leaves a look-around pattern to the provider instead of running it', () => {
    const schema = { type: 'object', properties: { pw: { type: 'string', pattern: '^(?=.*\\d).{8,}$' } } };
    const { validator, problems } = validatorWithProblems();
    expect(validator.validateAndRepair('x:pw', '1', schema, { pw: 'short' }).validated).toBe(true);
    expect(problems).toEqual([]);
  });

  it('translates \\u escapes, which JSON Schemas copy from JavaScript', () => {
    const schema = { type: 'object', properties: { word: { type: 'string', pattern: '^caf\\u00e9$' } } };
    const { validator } = validatorWithProblems();
    expect(validator.validateAndRepair('x:u', '1', schema, { word: 'café' }).validated).toBe(true);
    expect(() => validator.validateAndRepair('x:u', '1', schema, { word: 'cafe' })).toThrow(/\/word/);
  });
});
