import { credentials, loadPackageDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { InProcessBus } from '@toolhub/bus';
import descriptor from 'protobufjs/ext/descriptor';
import { dirname, join } from 'node:path';

import { type RunningDispatcher, startDispatcher } from '../src';

type Stream = { write(r: unknown): void; end(): void; on(ev: string, cb: (x: unknown) => void): void };

describe('gRPC server reflection', () => {
  let bus: InProcessBus;
  let running: RunningDispatcher;
  let client: { ServerReflectionInfo(): Stream; close(): void };

  beforeAll(async () => {
    bus = new InProcessBus();
    running = await startDispatcher(bus, { grpc: { port: 0 } });
    const protoDir = join(dirname(require.resolve('@grpc/reflection/package.json')), 'build', 'proto');
    const def = loadSync(join(protoDir, 'grpc/reflection/v1alpha/reflection.proto'), { keepCase: true, oneofs: true });
    const pkg = loadPackageDefinition(def) as unknown as { grpc: { reflection: { v1alpha: { ServerReflection: new (a: string, c: unknown) => typeof client } } } };
    client = new pkg.grpc.reflection.v1alpha.ServerReflection(running.grpc.address, credentials.createInsecure());
  });

  afterAll(async () => {
    client.close();
    await running.close(100);
    await bus.close();
  });

  const ask = (req: Record<string, unknown>) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const call = client.ServerReflectionInfo();
      call.on('data', (res) => resolve(res as Record<string, unknown>));
      call.on('error', reject);
      call.write(req);
      call.end();
    });

  it('lists the ToolHub, health and reflection services', async () => {
    const res = (await ask({ list_services: '*' })) as { list_services_response: { service: Array<{ name: string }> } };
    expect(res.list_services_response.service.map((s) => s.name)).toEqual(
      expect.arrayContaining(['toolhub.v1.ToolHub', 'grpc.health.v1.Health', 'grpc.reflection.v1alpha.ServerReflection']),
    );
  });

  it('returns a request type with its google.protobuf.Struct dependency, so grpcurl can encode it', async () => {
    const res = (await ask({ file_containing_symbol: 'toolhub.v1.RunToolRequest' })) as { file_descriptor_response: { file_descriptor_proto: Buffer[] } };
    const names = res.file_descriptor_response.file_descriptor_proto.map((b) => (descriptor.FileDescriptorProto.decode(b) as unknown as { name: string }).name);
    expect(names[0]).toBe('toolhub/v1/agent.proto');
    expect(names).toContain('google/protobuf/struct.proto');
  });

  it('answers an unknown symbol with NOT_FOUND in the stream, not a broken call', async () => {
    const res = (await ask({ file_containing_symbol: 'toolhub.v1.Nope' })) as { error_response: { error_code: number } };
    expect(res.error_response.error_code).toBe(5);
  });

  it('serves the grpc.health.v1 descriptor, valid for strict clients, so grpcurl can call Health/Check', async () => {
    const res = (await ask({ file_containing_symbol: 'grpc.health.v1.Health' })) as { file_descriptor_response: { file_descriptor_proto: Buffer[] } };
    const files = res.file_descriptor_response.file_descriptor_proto.map(
      (b) => descriptor.FileDescriptorProto.decode(b).toJSON() as { name: string; service?: Array<{ name: string }>; messageType?: Array<{ name: string; field?: Array<{ name: string; typeName?: string }>; nestedType?: Array<{ name: string; options?: { mapEntry?: boolean } }> }> },
    );
    expect(files.map((f) => f.name)).toEqual(['grpc/health/v1/health.proto']);
    expect(files[0]!.service?.map((s) => s.name)).toEqual(['Health']);
    // protobuf requires a map's entry type to be named <Field>Entry; grpcurl rejects the file otherwise.
    const list = files[0]!.messageType?.find((m) => m.name === 'HealthListResponse');
    expect(list?.nestedType).toEqual([expect.objectContaining({ name: 'StatusesEntry', options: { mapEntry: true } })]);
    expect(list?.field?.[0]?.typeName).toMatch(/(^|\.)StatusesEntry$/);
  });
});
