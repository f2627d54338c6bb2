/** Errors that quote huge input are cut to a size gRPC trailers and bus replies carry, saying what was cut. */
import { ToolHubError } from '../src';
import { boundedError, clip, MAX_ERROR_MESSAGE_CHARS } from '../src/error-bounds';

describe('boundedError', () => {
  it('returns small errors unchanged', () => {
    const e = ToolHubError.notFound('No tool x.', ['file_read']);
    expect(boundedError(e)).toBe(e);
  });

  it('cuts long messages, details and lists, and says so', () => {
    const e = ToolHubError.invalidArgument(
      `Provider "${'x'.repeat(100_000)}" is invalid.`,
      Array.from({ length: 50 }, (_, i) => ({ field: `/a/${i}`, message: 'y'.repeat(10_000), example: '"z"' })),
    );
    const b = boundedError(e);
    expect(b.code).toBe('invalid_argument');
    expect(b.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS);
    expect(b.message).toMatch(/more characters cut\) \(30 more not shown\)$/);
    expect(b.violations).toHaveLength(20);
    expect(b.violations[0]).toMatchObject({ field: '/a/0', example: '"z"' });
    expect(b.violations[0]!.message.length).toBeLessThanOrEqual(300);
    expect(b.cause).toBe(e);
  });

  it('never splits a surrogate pair', () => {
    const cut = clip(`${'a'.repeat(9)}😀${'b'.repeat(100)}`, 50);
    expect(cut.length).toBeLessThanOrEqual(50);
    expect(() => encodeURIComponent(cut)).not.toThrow();
  });
});
