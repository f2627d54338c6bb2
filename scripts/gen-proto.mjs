#!/usr/bin/env node
// Generates TypeScript from proto/ with buf + ts-proto (local plugin: no network needed).
// Runs on `npm install` (postinstall) and before tests, so a fresh clone always builds.
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const buf = join(root, 'node_modules', '.bin', 'buf');
if (!existsSync(buf)) {
  // During the very first `npm install` of a partial tree, devDependencies may be absent (e.g. --omit=dev).
  console.error('gen-proto: node_modules/.bin/buf not found; run `npm install` first.');
  process.exit(1);
}
rmSync(join(root, 'libs/contracts/src/gen'), { recursive: true, force: true });
execFileSync(buf, ['lint', 'proto'], { cwd: root, stdio: 'inherit' });
execFileSync(buf, ['generate', 'proto', '--template', 'proto/buf.gen.yaml'], { cwd: root, stdio: 'inherit' });
// The descriptor set (with google/protobuf imports) backs gRPC server reflection, so grpcurl works.
execFileSync(buf, ['build', 'proto', '--as-file-descriptor-set', '-o', 'libs/contracts/src/gen/toolhub-v1.binpb'], { cwd: root, stdio: 'inherit' });
console.log('gen-proto: libs/contracts/src/gen is up to date');
