import { isValidToolName, normalizePath, ToolHubError } from '@toolhub/contracts';
import { join } from 'node:path';

import { loadOpenApiDocument, type MappedDocument, mapOperations, type MappingOptions } from '../src';

const SHARED = join(__dirname, '..', '..', '..', '..', 'shared', 'data', 'openapi');
const FIXTURES = join(__dirname, 'fixtures');

async function mapFile(file: string, options: MappingOptions): Promise<MappedDocument> {
  const { document, refNames } = await loadOpenApiDocument(file);
  return mapOperations('cloud', document, { ...options, refNames });
}

const byName = (m: MappedDocument, name: string) => {
  const e = m.entries.find((x) => x.info.name === name);
  if (!e) throw new Error(`no tool ${name} among ${m.entries.map((x) => x.info.name).join(', ')}`);
  return e;
};

describe('real-world documents', () => {
  const documents: Array<[string, number]> = [
    ['petstore', 3],
    ['petstore-expanded', 4],
    ['uspto', 3],
    ['api-with-examples', 2],
    ['link-example', 6],
    ['callback-example', 1],
  ];

  it.each(documents)('%s parses and yields valid, unique, prefixed tool names with object input schemas', async (file, count) => {
    const alias = file.replace(/-/g, '_');
    const mapped = await mapFile(join(SHARED, `${file}.yaml`), { alias });
    expect(mapped.problems).toEqual([]);
    expect(mapped.entries).toHaveLength(count);
    const names = mapped.entries.map((e) => e.info.name);
    expect(new Set(names).size).toBe(names.length);
    for (const e of mapped.entries) {
      expect(isValidToolName(e.info.name)).toBe(true);
      expect(e.info.name.length).toBeLessThanOrEqual(64);
      expect(e.info.name.startsWith(`${alias}_`)).toBe(true);
      expect(e.info.id).toBe(`cloud:${e.info.name}`);
      expect(normalizePath(e.info.path)).toBe(e.info.path);
      expect(e.info.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(typeof e.info.inputSchema!.properties).toBe('object');
      expect(e.info.description).toContain(`Calls ${e.method} ${e.pathTemplate}`);
      expect(e.info.version).toMatch(/^[0-9a-f]{16}$/);
      // Self-contained: no reference points back into the document.
      expect(JSON.stringify(e.info.inputSchema)).not.toContain('#/components/');
    }
  });

  it('maps the petstore operations to snake_case names, tag categories and parameters', async () => {
    const mapped = await mapFile(join(SHARED, 'petstore.yaml'), { alias: 'petstore', mount: 'demo/petstore' });
    expect(mapped.title).toBe('Swagger Petstore');
    expect(mapped.entries.map((e) => e.info.name).sort()).toEqual(['petstore_create_pets', 'petstore_list_pets', 'petstore_show_pet_by_id']);
    const show = byName(mapped, 'petstore_show_pet_by_id');
    expect(show.info.path).toBe('demo/petstore/pets');
    expect(show.info.inputSchema).toEqual({
      type: 'object',
      properties: { pet_id: { type: 'string', description: 'The id of the pet to retrieve' } },
      required: ['pet_id'],
      additionalProperties: false,
    });
    expect(show.names.toNative({ pet_id: '7' })).toEqual({ petId: '7' });
    expect(show.serverUrl).toBe('http://petstore.swagger.io/v1');
    expect(show.info.annotations).toMatchObject({ readOnly: true, idempotent: true, openWorld: true });
    expect(show.info.description).toBe('Info for a specific pet. Calls GET /pets/{petId} of Swagger Petstore. Returns HTTP 200 with Pet {id: integer (int64), name: string, tag?: string}.');
    expect(show.info.outputDescription).toContain('default (unexpected error): application/json: Error {code: integer (int32), message: string}');
  });

  it('puts the request body under `body` with its schema resolved', async () => {
    const mapped = await mapFile(join(SHARED, 'petstore.yaml'), { alias: 'petstore' });
    const create = byName(mapped, 'petstore_create_pets');
    expect(create.body).toEqual({ key: 'body', mediaType: 'application/json', kind: 'json', required: true });
    expect(create.info.inputSchema).toMatchObject({
      required: ['body'],
      properties: { body: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' }, name: { type: 'string' }, tag: { type: 'string' } } } },
    });
    expect(create.info.annotations).toMatchObject({ readOnly: false, idempotent: false });
  });

  it('names operations without an operationId by method and path, and snake-cases nested names', async () => {
    const callbacks = await mapFile(join(SHARED, 'callback-example.yaml'), { alias: 'hooks' });
    expect(callbacks.entries.map((e) => e.info.name)).toEqual(['hooks_post_streams']);
    const streams = callbacks.entries[0]!;
    expect(streams.native).toBe('POST /streams');
    expect(Object.keys(streams.info.inputSchema!.properties as object)).toEqual(['callback_url']);
    expect(streams.names.toNative({ callback_url: 'https://x.test' })).toEqual({ callbackUrl: 'https://x.test' });
    expect(streams.info.path).toBe('hooks');

    const uspto = await mapFile(join(SHARED, 'uspto.yaml'), { alias: 'uspto' });
    expect(byName(uspto, 'uspto_list_data_sets').info.path).toBe('uspto/metadata');
    const search = byName(uspto, 'uspto_perform_search');
    expect(search.body).toMatchObject({ kind: 'form', mediaType: 'application/x-www-form-urlencoded' });
    expect(search.serverUrl).toBe('https://developer.uspto.gov/ds-api');
  });

  it('keeps native parameter names when normalisation is switched off for the document', async () => {
    const mapped = await mapFile(join(SHARED, 'petstore.yaml'), { alias: 'petstore', normalizeParams: false });
    const show = byName(mapped, 'petstore_show_pet_by_id');
    expect(Object.keys(show.info.inputSchema!.properties as object)).toEqual(['petId']);
    expect(show.names.identity).toBe(true);
  });

  it('leaves out tag categories when tagPaths is off, and filters operations by include/exclude', async () => {
    const mapped = await mapFile(join(SHARED, 'petstore.yaml'), { alias: 'petstore', tagPaths: false, include: ['*Pet*'], exclude: ['POST /pets'] });
    expect(mapped.entries.map((e) => [e.info.name, e.info.path])).toEqual([
      ['petstore_list_pets', 'petstore'],
      ['petstore_show_pet_by_id', 'petstore'],
    ]);
  });
});

describe('schemas', () => {
  it('resolves $refs into other files offline', async () => {
    const mapped = await mapFile(join(FIXTURES, 'split-main.yaml'), { alias: 'split' });
    const get = byName(mapped, 'split_get_order');
    expect(get.info.inputSchema).toMatchObject({ properties: { order_id: { type: 'string', description: "The order's id." } }, required: ['order_id'] });
    // OpenAPI 3.0 keywords become JSON Schema 2020-12 in the summary source too.
    expect(get.info.description).toContain('Returns HTTP 200 with Order {total?: number, note?: string or null}');
  });

  it('hoists recursive schemas into $defs and drops readOnly properties from requests', async () => {
    const mapped = await mapFile(join(FIXTURES, 'recursive.yaml'), { alias: 'tree' });
    const create = byName(mapped, 'tree_create_node');
    expect(create.info.path).toBe('tree/tree_nodes');
    const schema = create.info.inputSchema as { properties: { body: Record<string, unknown> }; $defs: Record<string, unknown> };
    expect(schema.properties.body).toEqual({ $ref: '#/$defs/Node', description: 'The request body, sent as application/json.' });
    expect(schema.$defs.Node).toEqual({
      type: 'object',
      required: ['label'],
      properties: { label: { type: ['string', 'null'] }, child_nodes: { type: 'array', items: { $ref: '#/$defs/Node' } } },
    });
    expect(create.info.description).toContain('Returns HTTP 201 with Node {nodeId?: string, label: string or null, childNodes?: array of Node}');
    expect(JSON.stringify(schema)).not.toContain('node_id');
    expect(create.names.toNative({ body: { label: 'a', child_nodes: [{ label: 'b', child_nodes: [] }] } })).toEqual({ body: { label: 'a', childNodes: [{ label: 'b', childNodes: [] }] } });
  });

  it('converts OpenAPI 3.0 nullable and boolean exclusive bounds to JSON Schema', async () => {
    const document = {
      openapi: '3.0.0',
      info: { title: 'T', version: '1' },
      paths: {
        '/x': {
          get: {
            operationId: 'x',
            parameters: [{ name: 'n', in: 'query', schema: { type: 'number', minimum: 1, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false, nullable: true, example: 3, 'x-internal': 1 } }],
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    };
    const mapped = mapOperations('cloud', document, { alias: 't' });
    expect(mapped.entries[0]!.info.inputSchema!.properties).toEqual({ n: { type: ['number', 'null'], exclusiveMinimum: 1, maximum: 9, examples: [3] } });
  });
});

describe('start-up problems', () => {
  it('reports parameter-name collisions, unsupported bodies and keeps names unique and short', async () => {
    const mapped = await mapFile(join(FIXTURES, 'collide.yaml'), { alias: 'collide' });
    const names = mapped.entries.map((e) => e.info.name);
    expect(names.every((n) => isValidToolName(n))).toBe(true);
    expect(new Set(names).size).toBe(names.length);

    // pageSize and page_size collide: reported, and the tool keeps the native names.
    const thing = byName(mapped, 'collide_get_thing');
    expect(Object.keys(thing.info.inputSchema!.properties as object)).toEqual(['id', 'id_query', 'pageSize', 'page_size', 'X-Trace-Id']);
    expect(mapped.problems.find((p) => p.includes('collide after normalisation'))).toMatch(/"pageSize" and "page_size" at the top level all become "page_size".*keep their native names/);
    // Authorization is the transport's (and the credentials'): never a parameter.
    expect(JSON.stringify(thing.info.inputSchema)).not.toMatch(/authorization/i);

    // multipart/form-data is sent (file fields as file parts).
    expect(byName(mapped, 'collide_upload_file').body).toMatchObject({ kind: 'multipart', mediaType: 'multipart/form-data' });

    // get_pet and getPet normalise alike: the later one gets a hash suffix.
    expect(names).toContain('collide_get_pet');
    expect(names.filter((n) => /^collide_get_pet_[0-9a-f]{8}$/.test(n))).toHaveLength(1);

    // Over 64 characters: cut, with a hash, still unique per method.
    const long = names.filter((n) => n.includes('very_long'));
    expect(long).toHaveLength(2);
    for (const n of long) expect(n.length).toBeLessThanOrEqual(64);
    const deleted = mapped.entries.find((e) => e.method === 'DELETE')!;
    expect(deleted.info.importance).toBe(3); // IMPORTANCE_LOW: deprecated
    expect(deleted.info.annotations).toMatchObject({ destructive: true, idempotent: true });
  });

  it('refuses Swagger 2.0 and non-OpenAPI input with a clear error', () => {
    expect(() => mapOperations('cloud', { swagger: '2.0', paths: {} }, { alias: 'old' })).toThrow(/Swagger 2.0 documents are not supported/);
    expect(() => mapOperations('cloud', { hello: 'world' }, { alias: 'x' })).toThrow(ToolHubError);
  });
});

describe('OpenAPI breadth', () => {
  it('reads a YAML document js-yaml refuses (duplicate keys) with the lenient reader, and says so', async () => {
    const loaded = await loadOpenApiDocument(join(FIXTURES, 'duplicate-keys.yaml'), { validate: 'off' });
    expect(loaded.warnings[0]).toMatch(/^read with the lenient YAML reader .*duplicated mapping key/);
    const mapped = mapOperations('cloud', loaded.document, { alias: 'dup', refNames: loaded.refNames, serverVariables: { version: 'v2' } });
    const get = byName(mapped, 'dup_get_thing');
    expect(get.info.description).toMatch(/^Gets one thing by its id; pass thing_id\./);
    expect(get.info.sourceName).toBe('getThing');
    expect(get.serverUrl).toBe('https://api.example.com/v2');
    // A required Accept header becomes an optional parameter (the adapter always sends one).
    expect(get.info.inputSchema).toMatchObject({ required: ['thing_id'], properties: { accept: { enum: ['application/json', 'application/yaml'] } } });
    // {partId} is used in the path but not declared: taken as a required string, reported.
    expect(byName(mapped, 'dup_delete_part').info.inputSchema).toMatchObject({ required: ['thing_id', 'part_id'] });
    expect(mapped.problems.find((p) => p.includes('{partId}'))).toMatch(/without describing it/);
    expect(byName(mapped, 'dup_upload_file').body).toMatchObject({ kind: 'multipart', fileFields: new Map([['file', 'application/octet-stream']]) });
    expect(byName(mapped, 'dup_put_blob').body).toMatchObject({ kind: 'binary', mediaType: 'application/octet-stream' });
    // video/mp4 cannot be sent: left out with the rule and the reason.
    expect(mapped.skipped).toEqual([{ native: 'postVideo', rule: 'body_media_type', reason: expect.stringMatching(/video\/mp4, which the cloud adapter cannot send/) }]);
  });
});
