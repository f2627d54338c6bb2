/**
 * gRPC server reflection (v1 and v1alpha) served from the contract's compiled descriptor set.
 * Written here because @grpc/reflection cannot resolve well-known imports such as
 * google.protobuf.Struct (grpc/grpc-node#2958), which every ToolHub request uses.
 */
import { loadPackageDefinition, type Server, type ServerDuplexStream, status } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import descriptor from 'protobufjs/ext/descriptor';
import { dirname, join } from 'node:path';

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

  constructor(descriptorSet: Uint8Array) {
    const set = descriptor.FileDescriptorSet.decode(descriptorSet) as unknown as { file: FileProto[] };
    for (const file of set.file) {
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
    this.services.push(...names);
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
