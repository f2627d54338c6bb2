#!/usr/bin/env node
// Fails when proto/ breaks wire compatibility with the last published contract
// (proto/published/toolhub-v1.binpb). Update the snapshot deliberately, in its own commit:
//   node scripts/proto-check.mjs --publish
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const buf = join(root, 'node_modules', '.bin', 'buf');
const snapshot = 'proto/published/toolhub-v1.binpb';
const run = (args) => execFileSync(buf, args, { cwd: root, stdio: 'inherit' });

run(['lint', 'proto']);
if (process.argv.includes('--publish')) {
  run(['build', 'proto', '-o', snapshot]);
  console.log(`proto-check: published the current contract to ${snapshot}; commit it on its own.`);
} else if (!existsSync(join(root, snapshot))) {
  console.error(`proto-check: ${snapshot} is missing; publish the first contract with --publish.`);
  process.exit(1);
} else {
  // The snapshot is a buf image, so the check needs no git history and no network.
  run(['breaking', 'proto', '--against', snapshot]);
  console.log('proto-check: no breaking changes against the published contract');
}
