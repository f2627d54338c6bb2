/** The error convention of adapter replies on the bus. */
import { ErrorInfo, HEADER_ERROR, HEADER_ERROR_CODE, ToolHubError } from '@toolhub/contracts';

import { errorReply, readReply } from '../src/wire';

const neverDecoded = (): never => {
  throw new Error('not a success reply');
};

function thrown(fn: () => unknown): ToolHubError {
  try {
    fn();
  } catch (err) {
    return err as ToolHubError;
  }
  throw new Error('expected a throw');
}

describe('adapter reply errors', () => {
  it('carry the error across: code, message and details', () => {
    const e = thrown(() => readReply(errorReply(ToolHubError.notFound('No tool file_reed.', ['file_read'], 'file')), neverDecoded));
    expect(e).toBeInstanceOf(ToolHubError);
    expect({ code: e.code, message: e.message, suggestions: e.suggestions, parentPath: e.parentPath }).toEqual({
      code: 'not_found',
      message: 'No tool file_reed.',
      suggestions: ['file_read'],
      parentPath: 'file',
    });
  });

  it('use the headers when the body is empty (the bus replies so when a handler throws or a reply is too large)', () => {
    const e = thrown(() => readReply({ data: new Uint8Array(0), headers: { [HEADER_ERROR_CODE]: 'internal', [HEADER_ERROR]: 'reply of 1100108 bytes exceeds the bus limit' } }, neverDecoded));
    expect(e.code).toBe('internal');
    expect(e.message).toBe('reply of 1100108 bytes exceeds the bus limit');
  });

  it('keep a message even when the remote sent none', () => {
    const e = thrown(() => readReply({ data: new Uint8Array(0), headers: { [HEADER_ERROR_CODE]: 'unavailable' } }, neverDecoded));
    expect(e.code).toBe('unavailable');
    expect(e.message).toMatch(/failed with unavailable and sent no message/);
  });

  it('stay far below the bus payload limit when the error quotes a huge input', () => {
    const huge = 'x'.repeat(400_000);
    const reply = errorReply(
      ToolHubError.invalidArgument(`columns must be an array, got ${huge}`, [
        { field: '/columns', message: `got ${huge}`, expected: 'array of string', example: huge },
        { field: '/columns', message: 'too long', expected: 'at most 1000 characters' },
      ]),
    );
    expect(reply.data.length).toBeLessThan(64 * 1024);
    const info = ErrorInfo.decode(reply.data);
    expect(info.message).toMatch(/^columns must be an array, got x+ … \(\d+ more characters cut\)$/);
    expect(info.violations.map((v) => v.expected)).toEqual(['array of string', 'at most 1000 characters']);
    expect(thrown(() => readReply(reply, neverDecoded)).code).toBe('invalid_argument');
  });
});
