/** The interop scripts in test/python, run by the Python `mcp` client (PyPI) from scripts/mcp-python.sh's venv. */
import { repoRoot } from '@toolhub/test-harness';
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = repoRoot(__dirname);

/** The venv's python, installed on first use (up to minutes on a fresh machine). */
export function mcpPython(): string {
  return execFileSync('bash', [join(ROOT, 'scripts/mcp-python.sh')], { encoding: 'utf8', timeout: 300_000, stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

/** Runs `libs/mcp-door/test/python/<script>` with `env` added; its exit code and output (stdout and stderr). */
export async function runInterop(python: string, script: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(python, [join(ROOT, 'libs/mcp-door/test/python', script)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  // 'close', not 'exit': the output's last chunks can arrive after the exit.
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, out };
}
