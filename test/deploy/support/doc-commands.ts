/**
 * The shell blocks of a Markdown page marked for a test (`<!-- test-block: NAME -->` on the line
 * before the fence), as command lines, and a small runner for them: the test runs what the page
 * says, so the page and the test cannot drift apart.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { childrenOf, spawnProcess, type SpawnedProcess } from '@toolhub/test-harness';

/**
 * The command lines of block `name` in `file` (comments and blank lines dropped).
 * @throws Error when the marker or its fenced block is missing
 */
export function markedBlock(file: string, name: string): string[] {
  const text = readFileSync(file, 'utf8');
  const m = new RegExp(`<!-- test-block: ${name} -->\\n\`\`\`(?:sh|bash)\\n([\\s\\S]*?)\\n\`\`\``).exec(text);
  if (!m) throw new Error(`${file} has no block marked <!-- test-block: ${name} --> followed by a \`\`\`sh fence`);
  return m[1]!
    .split('\n')
    .map((l) => l.replace(/(^|\s)#.*$/, '').trim())
    .filter((l) => l !== '');
}

export interface CommandResult {
  line: string;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one line with bash in `cwd`, with exactly `env`. */
export function runLine(line: string, cwd: string, env: NodeJS.ProcessEnv): Promise<CommandResult> {
  return new Promise((done, fail) => {
    const child = spawn('bash', ['-c', line], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ line, code, stdout, stderr }));
  });
}

/**
 * Runs the lines of a block as a person types them: `cd DIR` moves, `CMD &` starts CMD and waits
 * for `readyPattern` in its output (it keeps running), any other line must exit 0.
 * @returns the final directory, the results and the background processes
 */
export async function runBlock(
  lines: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; readyPattern: RegExp; timeoutMs?: number },
): Promise<{ cwd: string; results: CommandResult[]; background: SpawnedProcess[] }> {
  let cwd = options.cwd;
  const results: CommandResult[] = [];
  const background: SpawnedProcess[] = [];
  try {
    for (const line of lines) {
      const cd = /^cd\s+(\S+)$/.exec(line);
      if (cd) {
        cwd = resolve(cwd, cd[1]!);
        continue;
      }
      if (line.endsWith('&')) {
        const command = line.slice(0, -1).trim();
        background.push(await spawnProcess('bash', ['-c', `exec ${command}`], { cwd, env: options.env, readyPattern: options.readyPattern, timeoutMs: options.timeoutMs ?? 60_000 }));
        continue;
      }
      const r = await runLine(line, cwd, options.env);
      results.push(r);
      if (r.code !== 0) throw new Error(`"${line}" (in ${cwd}) exited with ${r.code}:\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);
    }
  } catch (err) {
    for (const p of background) await stopTree(p);
    throw err;
  }
  return { cwd, results, background };
}

/**
 * Stops a command started from a line (`npm start`): SIGTERM to what it started first, deepest
 * first — npm does not pass SIGTERM on to its script, whose process would outlive the test.
 */
export async function stopTree(p: SpawnedProcess): Promise<void> {
  const descendants: number[] = [];
  const walk = (pid: number) => {
    for (const c of childrenOf(pid)) {
      descendants.push(c.pid);
      walk(c.pid);
    }
  };
  walk(p.pid);
  for (const pid of descendants.reverse()) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Gone already.
    }
  }
  await p.kill('SIGTERM');
}
