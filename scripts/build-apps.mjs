#!/usr/bin/env node
// Builds every app (or the ones named) to dist/apps/<app>/main.js, to run with plain node:
//   node scripts/build-apps.mjs [app...]   then   node dist/apps/dispatcher/main.js
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const apps = process.argv.length > 2 ? process.argv.slice(2) : readdirSync('apps').filter((a) => existsSync(join('apps', a, 'src', 'main.ts')));
for (const app of apps) {
  if (!existsSync(join('apps', app, 'src', 'main.ts'))) {
    console.error(`no such app: ${app} (apps/${app}/src/main.ts is missing)`);
    process.exit(2);
  }
  execFileSync(process.execPath, ['scripts/build.mjs', `apps/${app}`, 'src/main.ts'], { stdio: 'inherit' });
}
