import { ToolHubError } from '@toolhub/contracts';

import { mapOperations, type OperationEntry } from '../src';
import { buildRequest, joinUrl, pathValue, queryPairs } from '../src/request';

const document = {
  openapi: '3.0.3',
  info: { title: 'Shapes', version: '1' },
  servers: [{ url: 'https://api.example.com/v1/' }],
  paths: {
    '/files/{fileName}/versions/{versionId}': {
      get: {
        operationId: 'getFileVersion',
        parameters: [
          { name: 'fileName', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'versionId', in: 'path', required: true, schema: { type: 'integer' } },
          { name: 'tags', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
          { name: 'ids', in: 'query', explode: false, schema: { type: 'array', items: { type: 'integer' } } },
          { name: 'filter', in: 'query', style: 'deepObject', schema: { type: 'object' } },
          { name: 'X-Request-Id', in: 'header', schema: { type: 'string' } },
          { name: 'session', in: 'cookie', schema: { type: 'string' } },
        ],
        responses: { '200': { description: 'ok' } },
      },
    },
    '/notes': {
      post: {
        operationId: 'addNote',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', properties: { noteText: { type: 'string' } } } } } },
        responses: { '201': { description: 'created' } },
      },
    },
    '/search': {
      post: {
        operationId: 'search',
        requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { q: { type: 'string' }, rows: { type: 'integer' } } } } } },
        responses: { '200': { description: 'ok' } },
      },
    },
  },
};

const mapped = mapOperations('cloud', document, { alias: 'shapes' });
const entry = (name: string): OperationEntry => mapped.entries.find((e) => e.info.name === name)!;
const base = new URL('https://api.example.com/v1/');

function build(name: string, args: Record<string, unknown>, maxBytes = 1024) {
  const e = entry(name);
  const toAgent = (k: string) => Object.keys(e.names.fromNative({ [k]: null }))[0] ?? k;
  return buildRequest(e, base, e.names.toNative(args), maxBytes, toAgent);
}

function errorOf(fn: () => unknown): ToolHubError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ToolHubError) return err;
    throw err;
  }
  throw new Error('expected a ToolHubError');
}

describe('buildRequest', () => {
  it('fills path, query, header and cookie parameters under the base path', () => {
    const req = build('shapes_get_file_version', {
      file_name: 'report 2024.pdf',
      version_id: 3,
      tags: ['a', 'b c'],
      ids: [1, 2],
      filter: { owner: 'me', kind: 'pdf' },
      x_request_id: 'r-1',
      session: 'abc;def',
    });
    expect(req.method).toBe('GET');
    expect(req.url.origin).toBe('https://api.example.com');
    expect(req.url.pathname).toBe('/v1/files/report%202024.pdf/versions/3');
    expect([...req.url.searchParams]).toEqual([
      ['tags', 'a'],
      ['tags', 'b c'],
      ['ids', '1,2'],
      ['filter[owner]', 'me'],
      ['filter[kind]', 'pdf'],
    ]);
    expect(req.headers).toEqual({ 'x-request-id': 'r-1', cookie: 'session=abc%3Bdef' });
    expect(req.body).toBeUndefined();
  });

  it.each([
    ['a/b', '/v1/files/a%2Fb/versions/1'],
    ['../../admin', '/v1/files/..%2F..%2Fadmin/versions/1'],
    ['@evil.example.com', '/v1/files/%40evil.example.com/versions/1'],
    ['//169.254.169.254/latest', '/v1/files/%2F%2F169.254.169.254%2Flatest/versions/1'],
    ['http://169.254.169.254/', '/v1/files/http%3A%2F%2F169.254.169.254%2F/versions/1'],
    ['x?y=1#frag', '/v1/files/x%3Fy%3D1%23frag/versions/1'],
    ['%2e%2e', '/v1/files/%252e%252e/versions/1'],
  ])('encodes path value %j so neither host nor path structure changes', (value, path) => {
    const req = build('shapes_get_file_version', { file_name: value, version_id: 1 });
    expect(req.url.host).toBe('api.example.com');
    expect(req.url.pathname).toBe(path);
    expect(req.url.search).toBe('');
  });

  it.each(['..', '.'])('refuses the dot segment %j as a path value', (value) => {
    const err = errorOf(() => build('shapes_get_file_version', { file_name: value, version_id: 1 }));
    expect(err.code).toBe('invalid_argument');
    expect(err.message).toMatch(/Path parameter "file_name" cannot be/);
  });

  it('refuses header values with line breaks (no header injection)', () => {
    const err = errorOf(() => build('shapes_get_file_version', { file_name: 'a', version_id: 1, x_request_id: 'x\r\nHost: evil' }));
    expect(err.code).toBe('invalid_argument');
    expect(err.violations[0]!.field).toBe('x_request_id');
  });

  it('names unknown and missing arguments in snake_case', () => {
    const unknown = errorOf(() => build('shapes_get_file_version', { file_name: 'a', version_id: 1, colour: 'red' }));
    expect(unknown.message).toMatch(/Unknown argument "colour" for shapes_get_file_version\. It takes: file_name, version_id, tags, ids, filter, x_request_id, session\./);
    const missing = errorOf(() => build('shapes_get_file_version', { file_name: 'a' }));
    expect(missing.message).toMatch(/Missing required argument "version_id"/);
    expect(errorOf(() => build('shapes_add_note', {})).violations[0]!.field).toBe('body');
  });

  it('sends JSON bodies with native property names, and refuses bodies over the cap', () => {
    const req = build('shapes_add_note', { body: { note_text: 'hello' } });
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toBe('{"noteText":"hello"}');
    const err = errorOf(() => build('shapes_add_note', { body: { note_text: 'x'.repeat(2000) } }, 1024));
    expect(err.code).toBe('invalid_argument');
    expect(err.message).toMatch(/request body of shapes_add_note is 2015 bytes; at most 1024 are sent/);
  });

  it('sends form bodies url-encoded', () => {
    const req = build('shapes_search', { body: { q: 'a&b=c', rows: 5 } });
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(req.body).toBe('q=a%26b%3Dc&rows=5');
  });
});

describe('parameter styles', () => {
  const spec = { name: 'p', style: 'simple', explode: false, json: false };
  it('serialises path parameters as simple, label and matrix', () => {
    expect(pathValue(spec, ['a', 'b/c'])).toBe('a,b%2Fc');
    expect(pathValue(spec, { x: 1, y: 'z' })).toBe('x,1,y,z');
    expect(pathValue({ ...spec, explode: true }, { x: 1 })).toBe('x=1');
    expect(pathValue({ ...spec, style: 'label' }, 'v')).toBe('.v');
    expect(pathValue({ ...spec, style: 'matrix' }, 'v')).toBe(';p=v');
  });

  it('serialises query arrays and objects by style', () => {
    const q = { name: 'q', style: 'form', explode: true, json: false };
    expect(queryPairs(q, [1, 2])).toEqual([
      ['q', '1'],
      ['q', '2'],
    ]);
    expect(queryPairs({ ...q, style: 'spaceDelimited', explode: false }, [1, 2])).toEqual([['q', '1 2']]);
    expect(queryPairs({ ...q, style: 'pipeDelimited', explode: false }, [1, 2])).toEqual([['q', '1|2']]);
    expect(queryPairs({ ...q, explode: false }, { a: 1, b: true })).toEqual([['q', 'a,1,b,true']]);
    expect(queryPairs({ ...q, json: true }, { a: [1] })).toEqual([['q', '{"a":[1]}']]);
  });

  it('keeps the base URL origin and path however the template is joined', () => {
    expect(joinUrl(new URL('http://h.test:8080/api'), '/x').href).toBe('http://h.test:8080/api/x');
    expect(joinUrl(new URL('http://h.test/'), 'x').href).toBe('http://h.test/x');
    expect(() => joinUrl(new URL('http://h.test/api'), '/a/../../b')).toThrow(/would leave the API's base URL/);
  });
});

describe('bodies and transport headers from real documents', () => {
  const doc = {
    openapi: '3.0.3',
    info: { title: 'Bodies', version: '1' },
    servers: [{ url: 'https://api.example.com' }],
    paths: {
      '/avatar': {
        post: {
          operationId: 'upload',
          requestBody: { content: { 'multipart/form-data': { schema: { type: 'object', properties: { pic: { type: 'string', format: 'binary' }, meta: { type: 'object' }, tags: { type: 'array', items: { type: 'string' } } } } } } },
          responses: { '201': { description: 'ok' } },
        },
      },
      '/apps': {
        post: {
          operationId: 'createApp',
          parameters: [{ name: 'Content-Type', in: 'header', required: true, schema: { type: 'string', enum: ['application/json', 'application/yaml'] } }],
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
          responses: { '201': { description: 'ok' } },
        },
      },
    },
  };
  const mapped = mapOperations('cloud', doc, { alias: 'b' });
  const entry = (name: string) => mapped.entries.find((e) => e.info.name === name)!;
  const base = new URL('https://api.example.com');

  it('sends multipart/form-data: a file part, a JSON part and one part per array item', () => {
    const req = buildRequest(entry('b_upload'), base, { body: { pic: 'PNG', meta: { a: 1 }, tags: ['x', 'y'] } }, 1 << 20);
    const boundary = /^multipart\/form-data; boundary=(toolhub-[0-9a-f-]+)$/.exec(req.headers['content-type']!)![1]!;
    expect(req.body).toBe(
      `--${boundary}\r\nContent-Disposition: form-data; name="pic"; filename="pic"\r\nContent-Type: application/octet-stream\r\n\r\nPNG\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n{"a":1}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="tags"\r\n\r\nx\r\n--${boundary}\r\nContent-Disposition: form-data; name="tags"\r\n\r\ny\r\n--${boundary}--\r\n`,
    );
  });

  it('sends a declared Content-Type the caller chose, and the body media type otherwise', () => {
    const chosen = buildRequest(entry('b_create_app'), base, { 'Content-Type': 'application/yaml', body: { name: 'x' } }, 1 << 20);
    expect(chosen.headers['content-type']).toBe('application/yaml');
    const fallback = buildRequest(entry('b_create_app'), base, { body: { name: 'x' } }, 1 << 20);
    expect(fallback.headers['content-type']).toBe('application/json');
    expect(entry('b_create_app').info.inputSchema!.required).toEqual(['body']);
  });
});
