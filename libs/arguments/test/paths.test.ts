import { ArgumentValidator, isPathLikeName, normalisePath } from '@toolhub/arguments';

describe('path normalisation', () => {
  it.each([
    ['docs\\reports\\q1.md', 'docs/reports/q1.md'],
    ['  /tmp//out///x.txt  ', '/tmp/out/x.txt'],
    ['./src/./index.ts', 'src/index.ts'],
    ['C:\\Users\\me\\file.txt', 'C:/Users/me/file.txt'],
    ['dir/', 'dir/'],
    ['./', '.'],
    ['//server/share//a', '//server/share/a'],
  ])('normalises %p to %p', (raw, expected) => {
    expect(normalisePath(raw)).toBe(expected);
  });

  it('never resolves ".." segments, so a path cannot be moved somewhere else', () => {
    expect(normalisePath('a/./b/../../etc/passwd')).toBe('a/b/../../etc/passwd');
    expect(normalisePath('../x')).toBe('../x');
  });

  it('leaves URLs, multi-line text and already-clean paths alone', () => {
    for (const raw of ['https://example.com//a/./b', 'line one\nline two', ' two\\lines\r\n', 'src/index.ts']) expect(normalisePath(raw)).toBe(raw);
  });

  it('recognises path-like property names but not words that merely end in "file"', () => {
    expect(['path', 'file', 'output_dir', 'sourceFilePath', 'paths', 'directory', 'target-folder'].every(isPathLikeName)).toBe(true);
    expect(['profile', 'xpath', 'filename_pattern', 'file_id', 'url'].some(isPathLikeName)).toBe(false);
  });

  it('normalises path properties found by name, by format "path", and inside arrays and nested objects', () => {
    const schema = {
      type: 'object',
      properties: {
        path: { type: 'string' },
        target: { type: 'string', format: 'path' },
        paths: { type: 'array', items: { type: 'string' } },
        job: { type: 'object', properties: { output_dir: { type: 'string' } } },
        title: { type: 'string' },
      },
    };
    const { args, fixes } = new ArgumentValidator().validateAndRepair('fs:copy', '1', schema, {
      path: 'a\\b',
      target: './c//d',
      paths: ['e\\f', 'ok/g'],
      job: { output_dir: ' out/ ' },
      title: 'a\\b',
    });
    expect(args).toEqual({ path: 'a/b', target: 'c/d', paths: ['e/f', 'ok/g'], job: { output_dir: 'out/' }, title: 'a\\b' });
    expect(fixes.map((f) => f.field).sort()).toEqual(['/job/output_dir', '/path', '/paths/0', '/target']);
  });

  it('skips a path property with a pattern, whose author decided the exact shape', () => {
    const schema = { type: 'object', properties: { path: { type: 'string', pattern: '^[A-Z]:\\\\' } } };
    expect(new ArgumentValidator().validateAndRepair('win:open', '1', schema, { path: 'C:\\x' }).fixes).toEqual([]);
  });

  it('normalises paths behind a local $ref and inside anyOf', () => {
    const schema = {
      type: 'object',
      definitions: { Src: { type: 'object', properties: { file: { anyOf: [{ type: 'string' }, { type: 'null' }] } } } },
      properties: { src: { $ref: '#/definitions/Src' } },
    };
    const { args } = new ArgumentValidator().validateAndRepair('fs:read', '1', schema, { src: { file: 'a//b' } });
    expect(args).toEqual({ src: { file: 'a/b' } });
  });

  it('normalises a path that arrives as a single value where a list of paths is expected', () => {
    const schema = { type: 'object', properties: { files: { type: 'array', items: { type: 'string' } } } };
    const { args, fixes } = new ArgumentValidator().validateAndRepair('fs:rm', '1', schema, { files: 'tmp\\a.txt' });
    expect(args).toEqual({ files: ['tmp/a.txt'] });
    expect(fixes.map((f) => f.field)).toEqual(['/files', '/files/0']);
  });
});
