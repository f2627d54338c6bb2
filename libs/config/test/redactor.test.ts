import { REDACTED, SecretRedactor } from '../src';

describe('SecretRedactor', () => {
  const r = new SecretRedactor(['Bearer sk-live-123456', 'p@ss word!', 'no', 'true']);

  it('replaces each secret as given, URL-encoded and base64-encoded', () => {
    expect(r.redact('auth: Bearer sk-live-123456')).toBe(`auth: ${REDACTED}`);
    expect(r.redact(`q=${encodeURIComponent('p@ss')}`)).toBe(`q=${REDACTED}`);
    expect(r.redact(Buffer.from('sk-live-123456').toString('base64'))).toBe(REDACTED);
  });

  it('hides each word of a multi-word value (a token after its scheme) but not short or ordinary words', () => {
    expect(r.redact('token sk-live-123456 used')).toBe(`token ${REDACTED} used`);
    expect(r.redact('no, that is true; Bearer scheme')).toBe('no, that is true; Bearer scheme');
  });

  it('redacts every string of a JSON value, keys included, and leaves the original untouched', () => {
    const value = { 'sk-live-123456': ['x sk-live-123456', 3, null, { deep: 'p@ss word!' }] };
    expect(r.redactJson(value)).toEqual({ [REDACTED]: [`x ${REDACTED}`, 3, null, { deep: REDACTED }] });
    expect(value['sk-live-123456'][0]).toBe('x sk-live-123456');
  });

  it('costs nothing when there is no secret', () => {
    const none = new SecretRedactor([]);
    const value = { a: 'b' };
    expect(none.empty).toBe(true);
    expect(none.redactJson(value)).toBe(value);
  });
});
