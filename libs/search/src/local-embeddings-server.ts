/**
 * The real local embeddings server (scripts/embeddings) for tests (exported by @toolhub/search/testing): its Python packages installed
 * into their virtual environment on a fresh machine (scripts/services.sh embeddings-python), then
 * started on a free port or the one given (a test that starts it late picks the port first).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(__dirname, '../../..');

let python: string | undefined;

/** The virtual environment's python with the server's packages (installs them once, minutes at most). */
export function embeddingsPython(): string {
  python ??= execFileSync('bash', [join(REPO_ROOT, 'scripts/services.sh'), 'embeddings-python'], { stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 }).toString().trim();
  return python;
}

const modelDirs = new Map<string, string>();

/**
 * The folder of the ONNX model for in-process embeddings (OnnxEmbeddings), made once per machine
 * by scripts/services.sh embeddings-model (seconds once the packages are there): without `model`,
 * the default export (TOOLHUB_EMBEDDINGS_MODEL as the environment sets it); with one, that model
 * (a MiniLM export, or a jar-published model fetched from Maven Central, SHA-256 pinned).
 */
export function exportedModelDir(model?: string): string {
  const key = model ?? '';
  let dir = modelDirs.get(key);
  if (dir === undefined) {
    const env = model ? { ...process.env, TOOLHUB_EMBEDDINGS_MODEL: model, TOOLHUB_EMBEDDINGS_MODEL_DIR: '' } : process.env;
    dir = execFileSync('bash', [join(REPO_ROOT, 'scripts/services.sh'), 'embeddings-model'], { stdio: ['ignore', 'pipe', 'inherit'], env, timeout: 600_000 })
      .toString()
      .trim()
      .replace(/^export TOOLHUB_EMBEDDINGS_MODEL_DIR=/, '');
    modelDirs.set(key, dir);
  }
  return dir;
}

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

export interface LocalEmbeddingsServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts the server (port 0 = a free one) and resolves once its model is loaded and it listens.
 * `model`: `all-MiniLM-L6-v2` for the base model; the server's default is the tuned one.
 */
export async function startLocalEmbeddings(port = 0, model?: string): Promise<LocalEmbeddingsServer> {
  const py = embeddingsPython();
  const portFile = join(tmpdir(), `toolhub-embeddings-test-${process.pid}-${Date.now()}.port`);
  const child: ChildProcess = spawn(py, [join(REPO_ROOT, 'scripts/embeddings/server.py'), '--port', String(port), '--port-file', portFile, '--quiet', ...(model ? ['--model', model] : [])], { stdio: ['ignore', 'ignore', 'inherit'] });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(portFile, { force: true });
  };
  // Loading the model takes seconds on a quiet machine, much longer on a busy one.
  for (let i = 0; i < 3000 && !existsSync(portFile); i++) {
    if (child.exitCode !== null) throw new Error(`the embeddings server exited during start-up (code ${child.exitCode})`);
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!existsSync(portFile)) {
    await stop();
    throw new Error('the embeddings server did not start within 300 s');
  }
  const bound = Number(readFileSync(portFile, 'utf8').trim());
  return { url: `http://127.0.0.1:${bound}/v1`, port: bound, stop };
}
