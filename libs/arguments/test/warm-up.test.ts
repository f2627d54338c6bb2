/** Readying the validator ahead of the first calls: the meta-schema and the schemas of known tools. */
import { ArgumentValidator } from '@toolhub/arguments';

import { Engines } from '../src/engines';

const schema = { type: 'object', properties: { n: { type: 'integer' } } };

describe('validator warm-up', () => {
  it('compiles the meta-schema of a dialect ahead, which Ajv otherwise does on the first schema it checks', () => {
    const engines = new Engines(true, 100);
    expect(engines.isWarm('draft-07')).toBe(false);
    engines.warmUp('draft-07');
    expect(engines.isWarm('draft-07')).toBe(true);
    expect(engines.isWarm('2020-12')).toBe(false);
  });

  it('compiles a tool version on prepare, so its first call finds it compiled', () => {
    const validator = new ArgumentValidator();
    validator.warmUp();
    validator.prepare('demo:count', 'v1', schema);
    expect(validator.stats()).toEqual({ entries: 1, hits: 0, misses: 1, unusableSchemas: 0 });
    expect(validator.validateAndRepair('demo:count', 'v1', schema, { n: '2' }).args).toEqual({ n: 2 });
    expect(validator.stats()).toEqual({ entries: 1, hits: 1, misses: 1, unusableSchemas: 0 });
  });

  it('reports a schema it cannot use on prepare, once, instead of throwing', () => {
    const problems: string[] = [];
    const validator = new ArgumentValidator({ onSchemaProblem: (p) => problems.push(p.toolId) });
    expect(() => validator.prepare('demo:broken', 'v1', { type: 'no-such-type' })).not.toThrow();
    validator.validateAndRepair('demo:broken', 'v1', { type: 'no-such-type' }, {});
    expect(problems).toEqual(['demo:broken']);
  });
});
