/**
 * Finds the console's built browser bundle (index.html + assets/). `npm install` builds it
 * (postinstall runs libs/console/build-ui.mjs); when it is missing (a clean checkout whose install
 * skipped scripts) it is built once, at start, from the sources beside this file.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Where the bundle may be: an explicit directory, beside an app bundle, or the lib's build output. */
export function uiBundleCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  return [env['TOOLHUB_CONSOLE_UI_DIR'], join(__dirname, 'console-ui'), resolve(__dirname, '..', 'dist', 'ui')].filter((p): p is string => !!p);
}

export interface UiBundle {
  /** Directory holding index.html and assets/, or undefined when none could be found or built. */
  dir: string | undefined;
  /** Milliseconds spent building it at start (0 when it was already built). */
  builtMs: number;
  /** Why there is none, for the page served instead. */
  problem?: string;
}

/** The bundle directory, building it when it is missing and its build script is at hand. */
export function ensureUiBundle(env: NodeJS.ProcessEnv = process.env): UiBundle {
  const candidates = uiBundleCandidates(env);
  const found = candidates.find((d) => existsSync(join(d, 'index.html')));
  if (found) return { dir: found, builtMs: 0 };
  const script = resolve(__dirname, '..', 'build-ui.mjs');
  if (!existsSync(script)) return { dir: undefined, builtMs: 0, problem: `The console bundle was not found (searched ${candidates.join(', ')}); set TOOLHUB_CONSOLE_UI_DIR.` };
  const started = performance.now();
  try {
    execFileSync(process.execPath, [script], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 });
  } catch (err) {
    return { dir: undefined, builtMs: 0, problem: `Building the console bundle failed: ${(err as Error).message}. Run \`node libs/console/build-ui.mjs\` to see why.` };
  }
  const built = candidates.find((d) => existsSync(join(d, 'index.html')));
  return { dir: built, builtMs: Math.round(performance.now() - started), problem: built ? undefined : 'The console build ran but wrote no index.html.' };
}
