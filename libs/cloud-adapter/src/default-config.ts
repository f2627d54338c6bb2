/** The configuration shipped with this package (see config/default.yaml). */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Absolute path of `libs/cloud-adapter/config/default.yaml`: next to the sources when run from
 * them (tsx, Jest), else under the working directory (an esbuild bundle run from the repo or
 * from the container's /app, where `libs/` is copied).
 */
export function defaultConfigPath(): string {
  const candidates = [join(__dirname, '..', 'config', 'default.yaml'), join(process.cwd(), 'libs', 'cloud-adapter', 'config', 'default.yaml')];
  return candidates.find((p) => existsSync(p)) ?? candidates[0]!;
}
