/**
 * An adapter as it was built against the published contract snapshot
 * (proto/published/toolhub-v1.binpb): its messages come from that snapshot's descriptors through
 * protobufjs, never from today's generated code, and it talks to NATS with the plain nats.js client.
 * It predates contract versioning, so its heartbeat carries no contract_version. Field names are
 * the snapshot's own (snake_case), as protobufjs reads them from descriptors.
 */
import { connect, headers as natsHeaders, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as protobuf from 'protobufjs';
import { FileDescriptorSet } from 'protobufjs/ext/descriptor';

export const SNAPSHOT = join(__dirname, '../../proto/published/toolhub-v1.binpb');

/** The published contract's types. */
export function publishedTypes() {
  // protobufjs/ext/descriptor adds Root.fromDescriptor at run time; its typings do not declare it.
  const fromDescriptor = (protobuf.Root as unknown as { fromDescriptor(set: unknown): protobuf.Root }).fromDescriptor;
  const root = fromDescriptor(FileDescriptorSet.decode(readFileSync(SNAPSHOT)));
  const t = (name: string) => root.lookupType(`toolhub.v1.${name}`);
  return { health: t('AdapterHealthResponse'), list: t('AdapterListResponse'), infoReq: t('AdapterInfoRequest'), info: t('AdapterInfoResponse'), runReq: t('AdapterRunRequest'), run: t('AdapterRunResponse'), error: t('ErrorInfo') };
}

type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };
/**
 * google.protobuf.Struct as protobufjs encodes it from descriptors: no well-known-type sugar, and
 * the map `fields` is the repeated key/value entries it is on the wire.
 */
function value(v: JsonValue): object {
  if (v === null) return { null_value: 0 };
  if (typeof v === 'boolean') return { bool_value: v };
  if (typeof v === 'number') return { number_value: v };
  if (typeof v === 'string') return { string_value: v };
  if (Array.isArray(v)) return { list_value: { values: v.map(value) } };
  return { struct_value: struct(v) };
}
function struct(o: { [k: string]: JsonValue }): object {
  return { fields: Object.entries(o).map(([key, v]) => ({ key, value: value(v) })) };
}

/** Serves provider `provider` with one tool, `old_echo`, until the returned close() is called. */
export async function servePublishedAdapter(natsUrl: string, provider: string): Promise<{ close(): Promise<void> }> {
  const T = publishedTypes();
  // Like any adapter team's code: plain nats.js, with the user and password of the NATS it is given.
  const nc: NatsConnection = await connect({ servers: natsUrl, name: `published-${provider}`, user: process.env['NATS_USER'], pass: process.env['NATS_PASSWORD'] });
  const enc = (type: protobuf.Type, obj: object) => type.encode(type.fromObject(obj)).finish();
  const tool = {
    id: `${provider}:old_echo`, provider, name: 'old_echo', path: 'legacy', description: 'Echoes text; built against the published contract.',
    input_schema: struct({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }), version: 'v1', importance: 2,
  };
  const heartbeat = () => nc.publish('toolhub.v1.discovery.heartbeat', enc(T.health, { provider, healthy: true, detail: 'ok', instance_id: `old-${provider}`, tool_count: 1, started_unix_ms: Date.now() }));
  const notFound = (msg: Msg, name: string) => {
    const h = natsHeaders(404, 'not_found');
    h.set('Nats-Service-Error-Code', 'not_found');
    h.set('Nats-Service-Error', `No tool ${name}`);
    msg.respond(enc(T.error, { code: 2, message: `No tool ${name} in ${provider}; it has old_echo.`, suggestions: ['old_echo'] }), { headers: h });
  };
  const queue = `toolhub-adapter-${provider}`;
  const on = (op: string, fn: (msg: Msg) => void) => nc.subscribe(`toolhub.v1.adapter.${provider}.${op}`, { queue, callback: (_e, m) => fn(m) });
  on('list', (m) => m.respond(enc(T.list, { categories: [{ path: 'legacy', name: 'legacy', tool_count: 1 }], tools: [{ id: tool.id, provider, name: tool.name, path: tool.path, summary: 'Echoes text.', importance: 2 }] })));
  on('info', (m) => {
    const req = T.infoReq.decode(m.data) as unknown as { name: string };
    if (req.name !== 'old_echo') notFound(m, req.name);
    else m.respond(enc(T.info, { tool }));
  });
  on('run', (m) => {
    const req = T.runReq.toObject(T.runReq.decode(m.data), { defaults: true }) as { name: string; arguments?: { fields?: Array<{ key: string; value?: { string_value?: string } }> } };
    if (req.name !== 'old_echo') return notFound(m, req.name);
    const text = req.arguments?.fields?.find((f) => f.key === 'text')?.value?.string_value ?? '';
    m.respond(enc(T.run, { status: 1, content: [{ text: `old: ${text}` }] }));
  });
  on('health', (m) => m.respond(enc(T.health, { provider, healthy: true, detail: 'ok', instance_id: `old-${provider}`, tool_count: 1 })));
  nc.subscribe('toolhub.v1.discovery.ping', { callback: () => heartbeat() });
  const timer = setInterval(heartbeat, 500);
  heartbeat();
  await nc.flush();
  return {
    close: async () => {
      clearInterval(timer);
      await nc.drain();
    },
  };
}
