/** The bin as a real process: scripts rely on its exit code and on stderr saying what to do. */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the toolhub bin', () => {
  it('exits 5 with how to start ToolHub when the connection is refused', async () => {
    const port = await closedPort();
    const res = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'libs', 'cli', 'src', 'bin.ts'), 'ls', 'local'], {
      cwd: ROOT,
      env: { ...process.env, TOOLHUB_ADDRESS: `127.0.0.1:${port}` },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(res.status).toBe(5);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain(`cannot reach the ToolHub agent API at 127.0.0.1:${port} (connect ECONNREFUSED`);
    expect(res.stderr).toContain('npm start');
  }, 40_000);
});
