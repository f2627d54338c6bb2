import { argumentLimitError, type ArgumentLimits, ArgumentWireCounter, countJsonNodes, measureArguments, measureRequestArguments, RunToolRequest, RunToolsRequest } from '../src';

const limits: ArgumentLimits = { maxBytes: 1_000_000, maxNodes: 100, maxDepth: 5 };

function encodeRun(args: Record<string, unknown>): Uint8Array {
  return RunToolRequest.encode({ provider: 'local', name: 'x', arguments: args, timeoutMs: 5, idempotencyKey: 'k', expectedVersion: '', caller: 'c', searchId: '' }).finish();
}

describe('argument limits', () => {
  const samples: Array<Record<string, unknown>> = [
    {},
    { a: 1, b: 'two', c: true, d: null },
    { list: [1, [2, 3], { x: [] }], nested: { deeper: { deepest: 'ok' } } },
    { items: Array.from({ length: 60 }, (_, i) => ({ i })) },
  ];

  it.each(samples.map((s) => [JSON.stringify(s).slice(0, 40), s]))('counts the same nodes and depth on the wire as on the decoded value: %s', (_name, args) => {
    const decoded = measureArguments(args, limits);
    const wire = measureRequestArguments(encodeRun(args as Record<string, unknown>), limits, { argumentsField: 3 });
    expect(wire.nodes).toBe(decoded.nodes);
    expect(wire.depth).toBe(decoded.depth);
    expect(wire.exceeded ?? decoded.exceeded).toBe(decoded.exceeded);
  });

  it('measures JSON bytes of decoded arguments exactly for plain data', () => {
    const args = { text: 'héllo', n: 12.5, list: [true, null, 'x'], o: {} };
    expect(measureArguments(args, limits).bytes).toBe(Buffer.byteLength(JSON.stringify(args)));
  });

  it('stops at the first node past the limit, on the wire and on values', () => {
    const args = { items: Array.from({ length: 10_000 }, (_, i) => i) };
    expect(measureArguments(args, limits)).toEqual(expect.objectContaining({ exceeded: 'nodes' }));
    const wire = measureRequestArguments(encodeRun(args), limits, { argumentsField: 3 });
    expect(wire).toEqual(expect.objectContaining({ exceeded: 'nodes', nodes: 101 }));
  });

  it('refuses depth and bytes', () => {
    expect(measureArguments({ a: { b: { c: { d: { e: { f: 1 } } } } } }, limits).exceeded).toBe('depth');
    expect(measureRequestArguments(encodeRun({ a: { b: { c: { d: { e: { f: 1 } } } } } }), limits, { argumentsField: 3 }).exceeded).toBe('depth');
    expect(measureArguments({ text: 'x'.repeat(2_000_000) }, limits).exceeded).toBe('bytes');
    expect(measureRequestArguments(encodeRun({ text: 'x'.repeat(2_000_000) }), limits, { argumentsField: 3 }).exceeded).toBe('bytes');
  });

  it("adds up a batch's calls", () => {
    const call = (n: number) => ({ id: `c${n}`, provider: 'local', name: 'x', arguments: { list: Array.from({ length: 40 }, () => n) }, timeoutMs: 0, idempotencyKey: '', expectedVersion: '', after: [] });
    const buf = RunToolsRequest.encode({ calls: [call(1), call(2)], maxParallel: 0, caller: '', searchId: '' }).finish();
    expect(measureRequestArguments(buf, limits, { repeatedField: 1, argumentsField: 4 })).toEqual(expect.objectContaining({ nodes: 82 }));
    const three = RunToolsRequest.encode({ calls: [call(1), call(2), call(3)], maxParallel: 0, caller: '', searchId: '' }).finish();
    expect(measureRequestArguments(three, limits, { repeatedField: 1, argumentsField: 4 }).exceeded).toBe('nodes');
  });

  it.each(samples.map((s) => [JSON.stringify(s).slice(0, 40), s]))('counts the same nodes in JSON text as in the parsed value: %s', (_name, args) => {
    const text = JSON.stringify(args, null, 1);
    expect(countJsonNodes(Buffer.from(text), 1000)).toEqual({ nodes: measureArguments(args, { ...limits, maxNodes: 1000 }).nodes, exceeded: false });
  });

  it('reads strings with quotes, brackets and escapes as one value', () => {
    expect(countJsonNodes(Buffer.from(JSON.stringify({ 'a:b': '[1,2]', c: ['x\\"y,', '{:}'] })), 100).nodes).toBe(4);
    expect(countJsonNodes(Buffer.from(JSON.stringify({ items: Array.from({ length: 500 }, (_, i) => i) })), 100)).toEqual({ nodes: 101, exceeded: true });
  });

  it('leaves malformed bytes to the decoder', () => {
    const buf = encodeRun({ a: 'b' });
    expect(measureRequestArguments(buf.subarray(0, buf.length - 3), limits, { argumentsField: 3 }).exceeded).toBeUndefined();
  });

  it('says which limit, its value, the size found and the env var', () => {
    const e = argumentLimitError({ bytes: 5000, nodes: 0, depth: 1, exceeded: 'bytes' }, { ...limits, maxBytes: 4096 });
    expect(e.code).toBe('invalid_argument');
    expect(e.message).toContain('take 5000 bytes; the limit is 4096 bytes (TOOLHUB_MAX_ARGUMENT_BYTES)');
    expect(e.violations).toEqual([expect.objectContaining({ field: '/', expected: 'at most 4096 bytes' })]);
  });

  it.each([1, 3, 7, 64, 1000])('counts the same when the bytes arrive in chunks of %i', (chunk) => {
    const cases: Array<[Uint8Array, { argumentsField: number; repeatedField?: number }]> = [
      ...samples.map((s) => [encodeRun(s), { argumentsField: 3 }] as [Uint8Array, { argumentsField: number }]),
      [encodeRun({ items: Array.from({ length: 10_000 }, (_, i) => i) }), { argumentsField: 3 }],
      [encodeRun({ a: { b: { c: { d: { e: { f: 1 } } } } } }), { argumentsField: 3 }],
      [encodeRun({ text: 'x'.repeat(2_000_000) }), { argumentsField: 3 }],
    ];
    for (const [buf, path] of cases) {
      const whole = measureRequestArguments(buf, limits, path);
      const counter = new ArgumentWireCounter(limits, path, buf.length);
      let early: unknown;
      for (let i = 0; i < buf.length && !counter.done; i += chunk) early = counter.push(buf, i, Math.min(buf.length, i + chunk));
      expect(counter.finish()).toEqual(whole);
      // A limit is reported as soon as it is passed, not at the end.
      if (whole.exceeded) expect(early).toEqual(whole);
    }
  });

  it('refuses from the first part of a message, before the rest has arrived', () => {
    const buf = encodeRun({ items: Array.from({ length: 50_000 }, (_, i) => i) }); // ~550 KB, under the byte limit
    const counter = new ArgumentWireCounter(limits, { argumentsField: 3 }, buf.length);
    expect(counter.push(buf, 0, 4096)).toEqual(expect.objectContaining({ exceeded: 'nodes', nodes: 101 }));
    const big = encodeRun({ text: 'x'.repeat(2_000_000) });
    expect(new ArgumentWireCounter(limits, { argumentsField: 3 }, big.length).push(big, 0, 64)).toEqual(expect.objectContaining({ exceeded: 'bytes' }));
  });

  it('does not count a truncated prefix as malformed: more bytes may come', () => {
    const buf = encodeRun({ items: Array.from({ length: 50 }, (_, i) => i) });
    const counter = new ArgumentWireCounter(limits, { argumentsField: 3 }, buf.length);
    expect(counter.push(buf, 0, 20)).toBeUndefined();
    expect(counter.done).toBe(false);
    counter.push(buf, 20);
    expect(counter.finish()).toEqual(expect.objectContaining({ nodes: 51 })); // the property and its 50 items
  });
});
