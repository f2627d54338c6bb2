/**
 * Locates the `.proto` sources at run time, for gRPC server reflection (grpcurl) and tools that
 * load descriptors dynamically.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const MARKER = join('toolhub', 'v1', 'agent.proto');

/** The proto files of the v1 contract, relative to {@link protoRoot}. */
export const PROTO_FILES = ['toolhub/v1/agent.proto', 'toolhub/v1/registry.proto', 'toolhub/v1/adapter.proto', 'toolhub/v1/events.proto'];

/**
 * The directory holding `toolhub/v1/*.proto`: `TOOLHUB_PROTO_DIR` if set, else the nearest `proto/`
 * above this module or the working directory.
 * @throws Error naming the places searched when none is found.
 */
export function protoRoot(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env['TOOLHUB_PROTO_DIR'];
  if (explicit) {
    if (existsSync(join(explicit, MARKER))) return resolve(explicit);
    throw new Error(`TOOLHUB_PROTO_DIR=${explicit} does not contain ${MARKER}`);
  }
  const tried: string[] = [];
  for (const start of [__dirname, process.cwd()]) {
    for (let dir = resolve(start); ; dir = dirname(dir)) {
      const candidate = join(dir, 'proto');
      tried.push(candidate);
      if (existsSync(join(candidate, MARKER))) return candidate;
      if (dirname(dir) === dir) break;
    }
  }
  throw new Error(`Cannot find the proto sources (${MARKER}); set TOOLHUB_PROTO_DIR. Searched: ${tried.slice(0, 6).join(', ')}...`);
}
