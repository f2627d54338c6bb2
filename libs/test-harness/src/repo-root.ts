/** Where the repository is, from a file's directory, whether that file runs from source or from a dist/ bundle. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The nearest directory at or above `from` that holds `nx.json` (the workspace root): benches and
 * tests find apps, data and results there whether they run from `bench/x/` or `dist/bench/x/`.
 * @throws Error when no such directory exists above `from`.
 */
export function repoRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'nx.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no nx.json at or above ${from}: not inside the ToolHub repository`);
  }
}
