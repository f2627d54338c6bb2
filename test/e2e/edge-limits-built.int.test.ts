/**
 * Issue 31's limits in the BUILT one-process app (`node dist/apps/toolhub/main.js`, as `npm start`
 * and bench/attacks run it), configured by env: the connection guard's TOOLHUB_GRPC_* on both gRPC
 * ports (it ran with the defaults whatever the env said), the registry admin API's JSON limits
 * (TOOLHUB_ADMIN_MAX_JSON_*), StartRun's arguments counted on the wire, and a call without
 * credentials refused from its headers.
 */
import { credentials, Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { hashApiKey } from '@toolhub/auth';
import { Importance, RegistryAdminClient, ToolHubClient, type ToolInfo } from '@toolhub/contracts';
import { freePort, repoRoot, scratchDir, spawnProcess, type SpawnedProcess, waitFor } from '@toolhub/test-harness';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect, type Socket } from 'node:net';
import { join } from 'node:path';

jest.setTimeout(60_000);

const ROOT = repoRoot(__dirname);
const AGENT_KEY = 'edge-limits-agent-key-0123456789';
const OPS_KEY = 'edge-limits-ops-key-0123456789';

function unaryCall<Res>(client: object, method: string, req: unknown, key: string): Promise<Res> {
  const md = new Metadata();
  md.set('authorization', `Bearer ${key}`);
  return new Promise((resolve, reject) =>
    (client as Record<string, (...a: unknown[]) => void>)[method]!.call(client, req, md, { deadline: Date.now() + 20_000 }, (err: ServiceError | null, res: Res) => (err ? reject(err) : resolve(res))),
  );
}

async function failure(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (err) {
    return err as ServiceError;
  }
  throw new Error('expected the call to fail');
}

describe('the built one-process app applies the configured edge limits', () => {
  let app: SpawnedProcess;
  let agent: ToolHubClient;
  let admin: RegistryAdminClient;
  let ports: { grpc: number; admin: number };
  const sockets: Socket[] = [];

  beforeAll(async () => {
    execFileSync(process.execPath, ['scripts/build-apps.mjs', 'toolhub'], { cwd: ROOT, stdio: 'pipe' });
    const dataDir = scratchDir('edge-limits-built');
    mkdirSync(dataDir, { recursive: true });
    const keys = join(dataDir, 'api-keys.json');
    writeFileSync(keys, JSON.stringify({ keys: [{ name: 'agent', sha256: hashApiKey(AGENT_KEY), roles: ['agent'] }, { name: 'ops', sha256: hashApiKey(OPS_KEY), roles: ['operator'] }] }));
    ports = { grpc: await freePort(), admin: await freePort() };
    app = await spawnProcess(process.execPath, ['dist/apps/toolhub/main.js'], {
      cwd: ROOT,
      env: {
        TOOLHUB_GRPC_PORT: String(ports.grpc),
        TOOLHUB_ADMIN_PORT: String(ports.admin),
        TOOLHUB_MCP_PORT: '0',
        TOOLHUB_CONSOLE_PORT: '0',
        TOOLHUB_DATA_DIR: dataDir,
        TOOLHUB_MCP: 'false',
        TOOLHUB_CLOUD: 'false',
        TOOLHUB_AUTH_API_KEYS: keys,
        TOOLHUB_GRPC_MAX_CONNECTIONS_PER_PEER: '3',
        TOOLHUB_ADMIN_MAX_JSON_NODES: '50',
        TOOLHUB_MAX_ARGUMENT_NODES: '100',
        LOG_LEVEL: 'warn',
      },
      readyPattern: /ToolHub is running/,
      timeoutMs: 90_000,
    });
    agent = new ToolHubClient(`127.0.0.1:${ports.grpc}`, credentials.createInsecure());
    admin = new RegistryAdminClient(`127.0.0.1:${ports.admin}`, credentials.createInsecure());
  }, 120_000);

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    agent?.close();
    admin?.close();
    await app?.kill('SIGTERM');
  });

  it('refuses an admin tool whose schema passes TOOLHUB_ADMIN_MAX_JSON_NODES', async () => {
    const properties = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, { type: 'string' }]));
    const tool: ToolInfo = {
      id: 'ops:wide', provider: 'ops', name: 'wide', path: 'x', description: 'Too wide.', inputSchema: { type: 'object', properties }, outputDescription: '',
      examples: [], importance: Importance.IMPORTANCE_NORMAL, annotations: {}, version: '', tags: [], defaultTimeoutMs: 0,
    };
    const err = await failure(unaryCall(admin, 'registerTool', { tool }, OPS_KEY));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toContain('more than 50 properties and array items');
    expect(err.details).toContain('TOOLHUB_ADMIN_MAX_JSON_NODES');
  });

  it("counts StartRun's arguments on the wire against TOOLHUB_MAX_ARGUMENT_NODES", async () => {
    const call = { provider: 'local', name: 'time_now', arguments: { items: Array.from({ length: 500 }, () => true) }, timeoutMs: 0, idempotencyKey: '', expectedVersion: '', caller: '', searchId: '' };
    const err = await failure(unaryCall(agent, 'startRun', { call }, AGENT_KEY));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toContain('(counted 101 before stopping)');
  });

  it('answers a call without credentials UNAUTHENTICATED', async () => {
    const err = await failure(new Promise((resolve, reject) => agent.listProviders({}, new Metadata(), (e, r) => (e ? reject(e) : resolve(r)))));
    expect(err.code).toBe(status.UNAUTHENTICATED);
    expect(err.details).toContain('Credentials required');
  });

  it.each(['grpc', 'admin'] as const)('closes connections past TOOLHUB_GRPC_MAX_CONNECTIONS_PER_PEER on the %s port', async (which) => {
    // The test's own clients may hold a connection to this port already: open 5 more, at most 3 stay.
    let closed = 0;
    const mine: Socket[] = [];
    for (let i = 0; i < 5; i++) {
      const s = tcpConnect({ host: '127.0.0.1', port: ports[which] });
      s.on('error', () => undefined);
      s.on('close', () => closed++);
      mine.push(s);
      sockets.push(s);
    }
    await waitFor(() => closed >= 2, { timeoutMs: 20_000, message: 'connections past the per-peer cap closed' });
    for (const s of mine) s.destroy();
  });
});
