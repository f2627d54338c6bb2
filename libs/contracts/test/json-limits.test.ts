import { measureArguments, measureJsonFields, measureJsonText, ToolInfo } from '../src';

const limits = { maxBytes: 100_000, maxNodes: 50, maxDepth: 6 };
const text = (v: unknown) => Buffer.from(JSON.stringify(v, null, 1));

describe('JSON limits on text and on protobuf fields', () => {
  const samples: unknown[] = [{}, { a: 1, b: 'x:y,[z]', c: [1, 2, { d: null }] }, { list: [[], [1], [[2, 3]]], s: 'quote \\" inside' }];

  it.each(samples.map((s) => [JSON.stringify(s), s]))('counts the same nodes and depth in JSON text as in the parsed value: %s', (_n, value) => {
    const onText = measureJsonText(text(value), limits);
    const onValue = measureArguments(value, limits);
    expect([onText.nodes, onText.depth]).toEqual([onValue.nodes, onValue.depth]);
    expect(onText.exceeded).toBeUndefined();
  });

  it('stops at the first node or depth past the limit', () => {
    expect(measureJsonText(text({ items: Array.from({ length: 500 }, (_, i) => i) }), limits)).toEqual(expect.objectContaining({ exceeded: 'nodes', nodes: 51 }));
    expect(measureJsonText(Buffer.from('[[[[[[[[[[1]]]]]]]]]]'), limits)).toEqual(expect.objectContaining({ exceeded: 'depth', depth: 7 }));
    expect(measureJsonText(text({ s: 'x'.repeat(200_000) }), limits).exceeded).toBe('bytes');
  });

  it("adds up a ToolInfo's schema text, its Struct and its examples on the wire", () => {
    const properties = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, { type: 'string' }]));
    const info = ToolInfo.encode({
      id: 'a:b', provider: 'a', name: 'b', path: '', description: '', inputSchema: { type: 'object', properties }, outputDescription: '',
      examples: [{ description: '', arguments: { p1: 'x', p2: 'y' }, result: '' }], importance: 0, annotations: {}, version: '', tags: [], defaultTimeoutMs: 0,
    }).finish();
    const schemaNodes = measureArguments({ type: 'object', properties }, limits).nodes; // 2 + 20 x 2 = 42
    const map = { struct: [6], json: [20, 21], messages: { 8: { struct: [2], json: [4] } } };
    const size = measureJsonFields(info, map, { ...limits, maxNodes: 1000 });
    // The schema travels twice (JSON text and the legacy Struct), the example's arguments too.
    expect(size.nodes).toBe(2 * schemaNodes + 2 * 2);
    expect(measureJsonFields(info, map, limits).exceeded).toBe('nodes');
  });
});
