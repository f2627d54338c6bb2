/** Identifier fields of a run are bounded: identifiers, not payloads. */
import { assertRunIdentifiers } from '../src';

describe('assertRunIdentifiers', () => {
  const ok = { idempotencyKey: '', caller: '', expectedVersion: '' };

  it('accepts identifiers up to 256 characters', () => {
    expect(() => assertRunIdentifiers({ ...ok, idempotencyKey: 'k'.repeat(256), caller: 'agent-7', expectedVersion: 'v1' })).not.toThrow();
  });

  it.each(['idempotencyKey', 'caller', 'expectedVersion'] as const)('refuses a %s of 257 characters, naming the field', (key) => {
    expect(() => assertRunIdentifiers({ ...ok, [key]: 'x'.repeat(257) })).toThrow(/ is 257 characters long; the limit is 256/);
  });
});
