/**
 * GetAccess and SearchTools `view_as` are for operators: an agent is refused both, an operator
 * sees the principals and grants (never a key hash), and a `view_as` that names nobody is refused
 * with the principals it could have named.
 */
import { status } from '@grpc/grpc-js';
import { Authenticator, Grants, hashApiKey } from '@toolhub/auth';
import { InProcessBus } from '@toolhub/bus';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type RunningDispatcher, startDispatcher } from '../src';
import { connectClient, failure, type TestClient, withApiKey } from './support/grpc-client';

const AGENT = 'agent-key-0123456789abcdef';
const OPS = 'ops-key-0123456789abcdef';

describe('access for operators', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolhub-access-'));
  let bus: InProcessBus;
  let dispatcher: RunningDispatcher;
  let authenticator: Authenticator;
  let grants: Grants;
  let client: TestClient;
  const as = withApiKey;

  beforeAll(async () => {
    writeFileSync(
      join(dir, 'keys.json'),
      JSON.stringify({
        keys: [
          { name: 'fleet', sha256: hashApiKey(AGENT), roles: ['agent'] },
          { name: 'ops', sha256: hashApiKey(OPS), roles: ['operator'] },
          { name: 'old', sha256: hashApiKey('old-key-0123456789abcdef'), roles: ['agent'], revoked: true },
        ],
      }),
    );
    writeFileSync(join(dir, 'grants.json'), JSON.stringify({ roles: { agent: { allow: ['local:*'], deny: ['local:secret/**'] }, operator: { allow: ['*'] } }, principals: { 'key:fleet': { deny: ['local:admin_*'] } } }));
    authenticator = Authenticator.create({ apiKeysPath: join(dir, 'keys.json') });
    grants = Grants.load(join(dir, 'grants.json'));
    bus = new InProcessBus();
    dispatcher = await startDispatcher(bus, { grpc: { port: 0, authenticator }, dispatcher: { warmCoreTools: false }, deps: { grants } });
    client = connectClient(dispatcher.grpc.address);
  });

  afterAll(async () => {
    client.close();
    await dispatcher.close(100);
    await bus.close();
    authenticator.close();
    grants.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows an operator the principals, roles, revocations and grants, and no key hash', async () => {
    const access = await client.getAccess({}, { metadata: as(OPS) });
    expect(access.localMode).toBe(false);
    expect(access.methods).toEqual(['API key']);
    expect(access.principals).toEqual([
      { id: 'key:fleet', roles: ['agent'], method: 'api_key', revoked: false },
      { id: 'key:old', roles: ['agent'], method: 'api_key', revoked: true },
      { id: 'key:ops', roles: ['operator'], method: 'api_key', revoked: false },
    ]);
    expect(access.grants).toEqual([
      { subject: 'role:agent', allow: ['local:*'], deny: ['local:secret/**'] },
      { subject: 'role:operator', allow: ['*'], deny: [] },
      { subject: 'key:fleet', allow: [], deny: ['local:admin_*'] },
    ]);
    expect(access.grantsDefault).toBe(false);
    expect(JSON.stringify(access)).not.toContain(hashApiKey(AGENT));
  });

  it('refuses GetAccess and view_as to an agent', async () => {
    expect((await failure(client.getAccess({}, { metadata: as(AGENT) }))).code).toBe(status.PERMISSION_DENIED);
    const viewAs = await failure(client.searchTools({ queries: ['x'], viewAs: 'key:ops' }, { metadata: as(AGENT) }));
    expect(viewAs.code).toBe(status.PERMISSION_DENIED);
    expect(viewAs.details).toMatch(/view_as is for operators: principal key:fleet/);
  });

  it('refuses a view_as that names nobody, an unknown role or a JWT subject, saying what it may name', async () => {
    const unknown = await failure(client.searchTools({ queries: ['x'], viewAs: 'key:flet' }, { metadata: as(OPS) }));
    expect(unknown.code).toBe(status.NOT_FOUND);
    expect(unknown.details).toMatch(/Known: key:fleet, key:old, key:ops, role:agent/);
    expect(unknown.info?.suggestions).toContain('key:fleet');
    expect((await failure(client.searchTools({ queries: ['x'], viewAs: 'role:root' }, { metadata: as(OPS) }))).code).toBe(status.INVALID_ARGUMENT);
    expect((await failure(client.searchTools({ queries: ['x'], viewAs: 'jwt:https://idp#alice' }, { metadata: as(OPS) }))).details).toMatch(/search as its role instead/);
  });
});
