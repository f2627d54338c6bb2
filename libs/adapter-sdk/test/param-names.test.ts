import { ToolHubError } from '@toolhub/contracts';

import { createParamNameMap, toSnakeCase } from '../src/param-names';

describe('toSnakeCase', () => {
  it.each([
    ['oldText', 'old_text'],
    ['getUserByID', 'get_user_by_id'],
    ['HTTPServer', 'http_server'],
    ['dry-run', 'dry_run'],
    ['user.name', 'user_name'],
    ['already_snake', 'already_snake'],
    ['ipv4Address', 'ipv4_address'],
    ['2faCode', '2fa_code'],
    ['__private', 'private'],
    ['Crème', 'creme'],
  ])('turns %s into %s', (native, snake) => {
    expect(toSnakeCase(native)).toBe(snake);
  });

  it('keeps a name that has no usable latin characters', () => {
    expect(toSnakeCase('名前')).toBe('名前');
  });
});

describe('createParamNameMap', () => {
  const editSchema = {
    type: 'object',
    properties: {
      path: { type: 'string' },
      edits: {
        type: 'array',
        items: { type: 'object', properties: { oldText: { type: 'string' }, newText: { type: 'string' } }, required: ['oldText', 'newText'] },
      },
      dryRun: { type: 'boolean', default: false },
    },
    required: ['path', 'edits'],
  };

  it('renames top-level and nested properties and their required lists', () => {
    const map = createParamNameMap(editSchema);
    expect(map.identity).toBe(false);
    expect(map.schema).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string' },
        edits: {
          type: 'array',
          items: { type: 'object', properties: { old_text: { type: 'string' }, new_text: { type: 'string' } }, required: ['old_text', 'new_text'] },
        },
        dry_run: { type: 'boolean', default: false },
      },
      required: ['path', 'edits'],
    });
    expect(map.renames).toEqual([
      { at: 'edits[]', native: 'oldText', name: 'old_text' },
      { at: 'edits[]', native: 'newText', name: 'new_text' },
      { at: '', native: 'dryRun', name: 'dry_run' },
    ]);
  });

  it('maps arguments back to the native names on every run, including inside arrays', () => {
    const map = createParamNameMap(editSchema);
    const args = { path: '/tmp/a', edits: [{ old_text: 'a', new_text: 'b' }], dry_run: true };
    expect(map.toNative(args)).toEqual({ path: '/tmp/a', edits: [{ oldText: 'a', newText: 'b' }], dryRun: true });
    expect(map.fromNative(map.toNative(args))).toEqual(args);
  });

  it('leaves the original schema and arguments untouched', () => {
    const schema = structuredClone(editSchema);
    const map = createParamNameMap(schema);
    const args = { dry_run: true };
    map.toNative(args);
    expect(schema).toEqual(editSchema);
    expect(args).toEqual({ dry_run: true });
  });

  it('passes unknown keys through so the provider can reject them', () => {
    const map = createParamNameMap(editSchema);
    expect(map.toNative({ dry_run: true, bogusKey: 1 })).toEqual({ dryRun: true, bogusKey: 1 });
  });

  it('is the identity when every name is snake_case already', () => {
    const schema = { type: 'object', properties: { a: { type: 'number' }, b_c: { type: 'number' } } };
    const map = createParamNameMap(schema);
    expect(map.identity).toBe(true);
    expect(map.schema).toBe(schema);
    const args = { a: 1 };
    expect(map.toNative(args)).toBe(args);
  });

  it('is the identity when normalisation is switched off', () => {
    const map = createParamNameMap(editSchema, { normalize: false });
    expect(map.identity).toBe(true);
    expect(map.schema).toBe(editSchema);
    expect(map.toNative({ dryRun: true })).toEqual({ dryRun: true });
  });

  it('reports a collision when the mapping is built, naming every colliding parameter', () => {
    const schema = { type: 'object', properties: { fooBar: {}, foo_bar: {}, 'foo-bar': {}, ok: {} } };
    let err: unknown;
    try {
      createParamNameMap(schema, { subject: 'tool "x_y"' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ToolHubError);
    const e = err as ToolHubError;
    expect(e.code).toBe('invalid_argument');
    expect(e.message).toContain('tool "x_y"');
    expect(e.message).toContain('"foo-bar" and "fooBar" and "foo_bar"');
    expect(e.violations).toEqual([expect.objectContaining({ field: 'foo_bar', message: 'foo-bar, fooBar, foo_bar all normalise to foo_bar' })]);
  });

  it('reports collisions in nested objects with their location', () => {
    const schema = { type: 'object', properties: { filter: { type: 'object', properties: { createdAt: {}, created_at: {} } } } };
    expect(() => createParamNameMap(schema)).toThrow(/in filter all become "created_at"/);
  });

  it('does not report the same name used in two different objects', () => {
    const schema = { type: 'object', properties: { userId: {}, owner: { type: 'object', properties: { userId: {} } } } };
    const map = createParamNameMap(schema);
    expect(map.toNative({ user_id: 1, owner: { user_id: 2 } })).toEqual({ userId: 1, owner: { userId: 2 } });
  });

  it('treats combinator branches as one object for names and collisions', () => {
    const schema = {
      type: 'object',
      properties: { kind: { type: 'string' } },
      oneOf: [
        { properties: { fileName: { type: 'string' } }, required: ['fileName'] },
        { properties: { urlPath: { type: 'string' } } },
      ],
      allOf: [{ required: ['kind'] }],
    };
    const map = createParamNameMap(schema);
    expect((map.schema.oneOf as Array<Record<string, unknown>>)[0]).toEqual({ properties: { file_name: { type: 'string' } }, required: ['file_name'] });
    expect(map.toNative({ kind: 'a', file_name: 'x', url_path: 'y' })).toEqual({ kind: 'a', fileName: 'x', urlPath: 'y' });
    expect(() => createParamNameMap({ anyOf: [{ properties: { fooBar: {} } }, { properties: { foo_bar: {} } }] })).toThrow(ToolHubError);
  });

  it('follows local $refs, including recursive ones, and rewrites pointers into renamed properties', () => {
    const schema = {
      type: 'object',
      properties: {
        rootNode: { $ref: '#/$defs/treeNode' },
        sameAsRoot: { $ref: '#/properties/rootNode' },
      },
      $defs: {
        treeNode: { type: 'object', properties: { nodeName: { type: 'string' }, childNodes: { type: 'array', items: { $ref: '#/$defs/treeNode' } } } },
      },
    };
    const map = createParamNameMap(schema);
    expect(map.schema.$defs).toEqual({
      treeNode: { type: 'object', properties: { node_name: { type: 'string' }, child_nodes: { type: 'array', items: { $ref: '#/$defs/treeNode' } } } },
    });
    expect((map.schema.properties as Record<string, unknown>).same_as_root).toEqual({ $ref: '#/properties/root_node' });
    const args = { root_node: { node_name: 'a', child_nodes: [{ node_name: 'b', child_nodes: [] }] }, same_as_root: { node_name: 'c' } };
    expect(map.toNative(args)).toEqual({
      rootNode: { nodeName: 'a', childNodes: [{ nodeName: 'b', childNodes: [] }] },
      sameAsRoot: { nodeName: 'c' },
    });
  });

  it('maps values of additionalProperties and tuple items without renaming the free keys', () => {
    const schema = {
      type: 'object',
      properties: {
        labelMap: { type: 'object', additionalProperties: { type: 'object', properties: { colorCode: { type: 'string' } } } },
        pairList: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'object', properties: { maxSize: { type: 'number' } } }] },
      },
    };
    const map = createParamNameMap(schema);
    expect(map.toNative({ label_map: { myLabel: { color_code: 'red' } }, pair_list: ['x', { max_size: 3 }] })).toEqual({
      labelMap: { myLabel: { colorCode: 'red' } },
      pairList: ['x', { maxSize: 3 }],
    });
  });

  it('rewrites object defaults, examples and dependentRequired to the new names', () => {
    const schema = {
      type: 'object',
      properties: { pageSize: { type: 'number' }, pageToken: { type: 'string' } },
      default: { pageSize: 10 },
      examples: [{ pageSize: 5, pageToken: 'abc' }],
      dependentRequired: { pageToken: ['pageSize'] },
    };
    const map = createParamNameMap(schema);
    expect(map.schema.default).toEqual({ page_size: 10 });
    expect(map.schema.examples).toEqual([{ page_size: 5, page_token: 'abc' }]);
    expect(map.schema.dependentRequired).toEqual({ page_token: ['page_size'] });
  });

  it('cannot be tricked into setting the prototype by a __proto__ key', () => {
    const map = createParamNameMap(editSchema);
    const args = JSON.parse('{"__proto__": {"polluted": true}, "dry_run": true}') as Record<string, unknown>;
    const out = map.toNative(args);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
