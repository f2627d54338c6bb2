/**
 * Bounded work per admin request over real gRPC: a tool's schemas and examples, and an overlays
 * file (JSON or YAML), are measured against bytes, nodes and depth before they are parsed, and
 * refused with INVALID_ARGUMENT naming the limit and its env var, leaving the catalog as it was;
 * the admin port has the agent API's connection guard (per-peer cap, a message declared over the
 * limit refused from its frame header).
 */
import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { ErrorInfo, GRPC_ERROR_TRAILER, Importance, type RegistryAdminClient, type ToolInfo } from '@toolhub/contracts';
import { EdgeCounters } from '@toolhub/grpc-edge';
import { waitFor } from '@toolhub/test-harness';
import { connect, type ClientHttp2Session } from 'node:http2';

import { checkOverlaysContent, type Registry, type RunningAdminServer } from '../src';
import { type AdminStack, startAdminStack } from './support/admin-stack';

const limits = { maxBytes: 200_000, maxNodes: 1_000, maxDepth: 20 };

function tool(name: string, inputSchema: Record<string, unknown>, exampleArgs?: Record<string, unknown>): ToolInfo {
  return {
    id: `ops:${name}`,
    provider: 'ops',
    name,
    path: 'admin',
    description: `Tool ${name}.`,
    inputSchema,
    outputDescription: '',
    examples: exampleArgs ? [{ description: 'an example', arguments: exampleArgs, result: '' }] : [],
    importance: Importance.IMPORTANCE_NORMAL,
    annotations: {},
    version: '',
    tags: [],
    defaultTimeoutMs: 0,
  };
}

function wideSchema(fields: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < fields; i++) properties[`f${i}`] = { type: 'string' };
  return { type: 'object', properties };
}

function deepSchema(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { inner: schema } };
  return schema;
}

describe('registry admin API: JSON limits and the connection guard', () => {
  let stack: AdminStack;
  let registry: Registry;
  let admin: RunningAdminServer;
  let client: RegistryAdminClient;
  const edge = new EdgeCounters();

  const call = <Req, Res>(method: 'registerTool' | 'importOverlays', req: Req) =>
    new Promise<Res>((resolve, reject) =>
      (client[method] as unknown as (r: Req, m: Metadata, o: object, cb: (err: ServiceError | null, res: Res) => void) => void).call(client, req, new Metadata(), { deadline: Date.now() + 20_000 }, (err, res) =>
        err ? reject(err) : resolve(res),
      ),
    );
  const failure = async (p: Promise<unknown>): Promise<ServiceError & { info?: ErrorInfo }> => {
    try {
      await p;
    } catch (err) {
      const e = err as ServiceError & { info?: ErrorInfo };
      const bin = e.metadata?.get(GRPC_ERROR_TRAILER)[0];
      if (bin instanceof Buffer) e.info = ErrorInfo.decode(bin);
      return e;
    }
    throw new Error('expected the call to fail');
  };

  beforeAll(async () => {
    stack = await startAdminStack({ jsonLimits: limits, edgeCounters: edge, maxMessageBytes: 1024 * 1024, connectionLimits: { maxConnectionsPerPeer: 4 } });
    ({ registry, admin, client } = stack);
  });
  afterAll(() => stack?.close());

  it('registers a tool within the limits', async () => {
    await call('registerTool', { tool: tool('fine', wideSchema(100), { f1: 'x' }) });
    expect((await registry.getTool('ops', 'fine')).tool?.name).toBe('fine');
  });

  it('refuses a schema with more properties than the limit before parsing it, and registers nothing', async () => {
    const err = await failure(call('registerTool', { tool: tool('wide', wideSchema(600)) }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toContain("The tool's schemas and examples (together): more than 1000 properties and array items");
    expect(err.details).toContain('TOOLHUB_ADMIN_MAX_JSON_NODES');
    expect(err.info?.violations[0]).toEqual(expect.objectContaining({ field: '/', expected: 'at most 1000 properties and array items' }));
    await expect(registry.getTool('ops', 'wide')).rejects.toThrow();
  });

  it("counts the examples' arguments with the schema, and refuses depth and bytes", async () => {
    const many = Object.fromEntries(Array.from({ length: 900 }, (_, i) => [`k${i}`, i]));
    const err = await failure(call('registerTool', { tool: tool('examples', wideSchema(100), many) }));
    expect(err.details).toContain('TOOLHUB_ADMIN_MAX_JSON_NODES');
    const deep = await failure(call('registerTool', { tool: tool('deep', deepSchema(15)) }));
    expect(deep.code).toBe(status.INVALID_ARGUMENT);
    expect(deep.details).toContain('nested deeper than the limit of 20 levels (TOOLHUB_ADMIN_MAX_JSON_DEPTH)');
    const big = await failure(call('registerTool', { tool: tool('big', { type: 'object', description: 'y'.repeat(300_000) }) }));
    expect(big.details).toMatch(/: \d+ bytes; the limit is 200000 bytes \(TOOLHUB_ADMIN_MAX_JSON_BYTES\)/);
  });

  it('refuses an overlays file past the limits, as JSON and as YAML, and changes nothing', async () => {
    const tools = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`ops:t${i}`, { importance: 'core', enabled: true }]));
    const json = await failure(call('importOverlays', { content: JSON.stringify({ tools }), format: '', changedBy: 'test', dryRun: false }));
    expect(json.code).toBe(status.INVALID_ARGUMENT);
    expect(json.details).toContain('The overlays file: more than 1000 properties');
    expect(json.details).toContain('TOOLHUB_ADMIN_MAX_JSON_NODES');
    const yaml = Object.keys(tools)
      .map((id) => `  ${id}: { importance: core, enabled: true }`)
      .join('\n');
    const asYaml = await failure(call('importOverlays', { content: `tools:\n${yaml}\n`, format: 'yaml', changedBy: 'test', dryRun: false }));
    expect(asYaml.details).toContain('TOOLHUB_ADMIN_MAX_JSON_NODES');
    expect((await registry.getTool('ops', 'fine')).overlay?.importance ?? Importance.IMPORTANCE_UNSPECIFIED).not.toBe(Importance.IMPORTANCE_CORE);
    // Within the limits the same path works (and names the unknown tools, as before).
    const ok = await call<unknown, { toolsChanged: number }>('importOverlays', { content: JSON.stringify({ tools: { 'ops:fine': { importance: 'core' } } }), format: '', changedBy: 'test', dryRun: false });
    expect(ok.toolsChanged).toBe(1);
  });

  it('checks YAML bytes before parsing it', () => {
    expect(() => checkOverlaysContent(`tools: {}\n# ${'z'.repeat(300_000)}`, 'yaml', limits)).toThrow(/TOOLHUB_ADMIN_MAX_JSON_BYTES/);
  });

  it('guards the admin port like the agent API: a message declared over the limit, connections past the per-peer cap', async () => {
    const sessions: ClientHttp2Session[] = [];
    try {
      const s = connect(`http://${admin.address}`);
      s.on('error', () => undefined);
      sessions.push(s);
      const stream = s.request({ ':method': 'POST', ':path': '/toolhub.v1.RegistryAdmin/RegisterTool', 'content-type': 'application/grpc', te: 'trailers' });
      stream.on('error', () => undefined);
      const header = Buffer.alloc(5);
      header.writeUInt32BE(1_500_000, 1); // over 1 MiB, under what grpc-js refuses itself; no body follows
      stream.write(header);
      const grpcStatus = await new Promise<string | undefined>((resolve) => {
        let st: string | undefined;
        stream.on('response', (h) => h['grpc-status'] !== undefined && (st = String(h['grpc-status'])));
        stream.on('close', () => resolve(st));
        stream.resume();
      });
      expect(grpcStatus).toBe(String(status.INVALID_ARGUMENT));
      expect(edge.refused.message_size).toBe(1);
      const before = edge.refused.connections_per_peer;
      for (let i = 0; i < 5; i++) {
        const extra = connect(`http://${admin.address}`);
        extra.on('error', () => undefined);
        sessions.push(extra);
      }
      await waitFor(() => edge.refused.connections_per_peer > before);
    } finally {
      for (const s of sessions) s.destroy();
    }
  });
});
