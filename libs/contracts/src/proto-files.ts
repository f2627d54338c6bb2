/**
 * Locates the contract's compiled descriptor set at run time, for gRPC server reflection (grpcurl).
 * `npm install` generates it (scripts/gen-proto.mjs); app bundles carry a copy beside main.js.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const FILE = 'toolhub-v1.binpb';

/**
 * The FileDescriptorSet of every `toolhub/v1` file and its imports (google/protobuf/*).
 * @throws Error naming the places searched when none is found (run `npm run gen`).
 */
export function contractDescriptorSet(env: NodeJS.ProcessEnv = process.env): Buffer {
  const candidates = [env['TOOLHUB_DESCRIPTOR_SET'], join(__dirname, FILE), join(__dirname, 'gen', FILE)].filter((p): p is string => !!p);
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`Cannot find the contract descriptor set ${FILE}; run \`npm run gen\` or set TOOLHUB_DESCRIPTOR_SET. Searched: ${candidates.join(', ')}`);
  return readFileSync(found);
}
