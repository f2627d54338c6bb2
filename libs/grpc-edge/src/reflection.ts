/**
 * gRPC server reflection (v1 and v1alpha) served from the contract's compiled descriptor set.
 * Written here because @grpc/reflection cannot resolve well-known imports such as
 * google.protobuf.Struct (grpc/grpc-node#2958), which every ToolHub request uses.
 */
import { loadPackageDefinition, type Server, type ServerDuplexStream, status } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import descriptor from 'protobufjs/ext/descriptor';
import { dirname, join } from 'node:path';

/**
 * The descriptor of grpc.health.v1 (from grpc-health-check's own proto), so reflection clients
 * (grpcurl, grpc-health-probe's --reflection users) can call Health/Check on any ToolHub server.
 * Without it reflection lists the service but `grpcurl ... grpc.health.v1.Health/Check` fails with
 * "target server does not expose service".
 */
function healthFileDescriptors(): FileProto[] {
  const def = loadSync(require.resolve('grpc-health-check/proto/health/v1/health.proto'), { keepCase: true });
  const request = def['grpc.health.v1.HealthCheckRequest'] as unknown as { fileDescriptorProtos?: Uint8Array[] } | undefined;
  return (request?.fileDescriptorProtos ?? []).map((bytes) => {
    const file = descriptor.FileDescriptorProto.decode(bytes).toJSON() as FileProto;
    // protobufjs names map entries after the field ("Statuses"); protobuf requires "<Field>Entry"
    // and strict clients (grpcurl) reject the file otherwise.
    for (const m of file.messageType ?? []) fixMapEntryNames(m);
    return { ...file, name: 'grpc/health/v1/health.proto' };
  });
}

function fixMapEntryNames(message: MessageProto): void {
  for (const nested of message.nestedType ?? []) {
    fixMapEntryNames(nested);
    if (!nested.options?.mapEntry) continue;
    const field = (message.field ?? []).find((f) => f.typeName === nested.name || f.typeName?.endsWith(`.${nested.name}`));
    if (!field) continue;
    const entryName = `${field.name.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase())}Entry`;
    field.typeName = field.typeName!.slice(0, field.typeName!.length - nested.name.length) + entryName;
    nested.name = entryName;
  }
}

interface FileProto {
  name: string;
  package?: string;
  dependency?: string[];
  messageType?: MessageProto[];
  enumType?: Array<{ name: string }>;
  service?: Array<{ name: string; method?: Array<{ name: string }> }>;
}
interface MessageProto {
  name: string;
  field?: Array<{ name: string; typeName?: string }>;
  options?: { mapEntry?: boolean };
  nestedType?: MessageProto[];
  enumType?: Array<{ name: string }>;
}

interface ReflectionRequest {
  host?: string;
  file_by_filename?: string;
  file_containing_symbol?: string;
  list_services?: string;
  message_request?: string;
}

/** Index of a FileDescriptorSet: files by name (encoded) and the file of every symbol. */
export class DescriptorIndex {
  private readonly files = new Map<string, { bytes: Uint8Array; deps: string[] }>();
  private readonly symbols = new Map<string, string>();
  readonly services: string[] = [];

  /** Indexes `descriptorSet` (none: only health) plus the grpc.health.v1 descriptor every ToolHub server serves. */
  constructor(descriptorSet?: Uint8Array) {
    const set = descriptorSet ? (descriptor.FileDescriptorSet.decode(descriptorSet) as unknown as { file: FileProto[] }) : { file: [] };
    const health = healthFileDescriptors().map((f) => descriptor.FileDescriptorProto.fromObject(f as never) as unknown as FileProto);
    for (const file of [...set.file, ...health]) {
      if (this.files.has(file.name)) continue;
      const bytes = descriptor.FileDescriptorProto.encode(file as never).finish();
      this.files.set(file.name, { bytes, deps: file.dependency ?? [] });
      const prefix = file.package ? `${file.package}.` : '';
      const addMessage = (m: MessageProto, scope: string) => {
        const full = `${scope}${m.name}`;
        this.symbols.set(full, file.name);
        for (const e of m.enumType ?? []) this.symbols.set(`${full}.${e.name}`, file.name);
        for (const n of m.nestedType ?? []) addMessage(n, `${full}.`);
      };
      for (const m of file.messageType ?? []) addMessage(m, prefix);
      for (const e of file.enumType ?? []) this.symbols.set(`${prefix}${e.name}`, file.name);
      for (const s of file.service ?? []) {
        const full = `${prefix}${s.name}`;
        this.symbols.set(full, file.name);
        for (const m of s.method ?? []) this.symbols.set(`${full}.${m.name}`, file.name);
      }
    }
  }

  /** Adds service names that are served but whose descriptors are not in the set (health, reflection). */
  addServiceNames(...names: string[]): void {
    for (const name of names) if (!this.services.includes(name)) this.services.push(name);
  }

  /** The file and everything it imports, transitively, file first. */
  fileWithDependencies(name: string): Uint8Array[] | undefined {
    if (!this.files.has(name)) return undefined;
    const out: Uint8Array[] = [];
    const seen = new Set<string>();
    const visit = (n: string) => {
      const f = this.files.get(n);
      if (!f || seen.has(n)) return;
      seen.add(n);
      out.push(f.bytes);
      f.deps.forEach(visit);
    };
    visit(name);
    return out;
  }

  fileOfSymbol(symbol: string): string | undefined {
    return this.symbols.get(symbol.replace(/^\./, ''));
  }
}

function answer(index: DescriptorIndex, req: ReflectionRequest): Record<string, unknown> {
  const base = { valid_host: req.host ?? '', original_request: req };
  const notFound = (what: string) => ({ ...base, error_response: { error_code: status.NOT_FOUND, error_message: `${what} not found` } });
  if (req.list_services !== undefined && req.message_request === 'list_services') {
    return { ...base, list_services_response: { service: index.services.map((name) => ({ name })) } };
  }
  if (req.message_request === 'file_by_filename') {
    const files = index.fileWithDependencies(req.file_by_filename ?? '');
    return files ? { ...base, file_descriptor_response: { file_descriptor_proto: files } } : notFound(`file ${req.file_by_filename}`);
  }
  if (req.message_request === 'file_containing_symbol') {
    const file = index.fileOfSymbol(req.file_containing_symbol ?? '');
    const files = file ? index.fileWithDependencies(file) : undefined;
    return files ? { ...base, file_descriptor_response: { file_descriptor_proto: files } } : notFound(`symbol ${req.file_containing_symbol}`);
  }
  return { ...base, error_response: { error_code: status.UNIMPLEMENTED, error_message: `${req.message_request ?? 'request'} is not supported` } };
}

/** Adds reflection v1 and v1alpha to `server`, answering from `index`. */
export function addReflection(server: Server, index: DescriptorIndex): void {
  const protoDir = join(dirname(require.resolve('@grpc/reflection/package.json')), 'build', 'proto');
  for (const version of ['v1', 'v1alpha'] as const) {
    const def = loadSync(join(protoDir, 'grpc', 'reflection', version, 'reflection.proto'), { keepCase: true, oneofs: true, longs: Number, defaults: false });
    const pkg = loadPackageDefinition(def) as unknown as { grpc: { reflection: Record<string, { ServerReflection: { service: never } }> } };
    server.addService(pkg.grpc.reflection[version]!.ServerReflection.service, {
      ServerReflectionInfo: (call: ServerDuplexStream<ReflectionRequest, unknown>) => {
        call.on('data', (req: ReflectionRequest) => call.write(answer(index, req)));
        call.on('end', () => call.end());
        call.on('error', () => call.end());
      },
    });
  }
  index.addServiceNames('grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection');
}
