import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { SDK_NAME, SDK_VERSION } from '../src';

describe('SDK version', () => {
  it('equals the name and version in package.json, which heartbeats announce', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { name: string; version: string };
    expect(`${SDK_NAME}@${SDK_VERSION}`).toBe(`${pkg.name}@${pkg.version}`);
  });
});
