/**
 * A provider hidden from a principal by its grants answers exactly like a provider that does not
 * exist: same code, same message (but for the name), and "Known providers" names only what the
 * principal may see — otherwise the error would confirm the hidden provider exists.
 */
import { Metadata, status } from '@grpc/grpc-js';
import { type AdapterService, serveAdapter, staticCatalog, textResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import { Authenticator, Grants, hashApiKey } from '@toolhub/auth';
import { InProcessBus } from '@toolhub/bus';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type RunningDispatcher, startDispatcher } from '../src';
import { type CallError, connectClient, failure, type TestClient } from './support/grpc-client';

const schema = { type: 'object', properties: { text: { type: 'string' } } };
const localTools: ToolDefinition<never>[] = [{ name: 'echo_text', path: 'text', description: 'Echoes text back.', inputSchema: schema, run: async (a: { text?: string }) => textResult(a.text ?? '') }];
const vaultTools: ToolDefinition<never>[] = [{ name: 'read_secret', path: 'store', description: 'Reads a secret.', inputSchema: schema, run: async () => textResult('the secret') }];

describe('a provider hidden by grants', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolhub-hidden-provider-'));
  let bus: InProcessBus;
  let adapters: AdapterService[];
  let dispatcher: RunningDispatcher;
  let authenticator: Authenticator;
  let grants: Grants;
  let client: TestClient;
  const agent = new Metadata();
  agent.set('x-api-key', 'agent-key-0123456789abcdef');
  const ops = new Metadata();
  ops.set('x-api-key', 'ops-key-0123456789abcdef');

  beforeAll(async () => {
    writeFileSync(
      join(dir, 'keys.json'),
      JSON.stringify({
        keys: [
          { name: 'fleet', sha256: hashApiKey('agent-key-0123456789abcdef'), roles: ['agent'] },
          { name: 'ops', sha256: hashApiKey('ops-key-0123456789abcdef'), roles: ['operator'] },
        ],
      }),
    );
    writeFileSync(join(dir, 'grants.json'), JSON.stringify({ roles: { agent: { allow: ['local:*'] }, operator: { allow: ['*'] } } }));
    authenticator = Authenticator.create({ apiKeysPath: join(dir, 'keys.json') });
    grants = Grants.load(join(dir, 'grants.json'));
    bus = new InProcessBus();
    adapters = [await serveAdapter(bus, { provider: 'local', ...staticCatalog('local', localTools) }), await serveAdapter(bus, { provider: 'vault', ...staticCatalog('vault', vaultTools) })];
    dispatcher = await startDispatcher(bus, { grpc: { port: 0, authenticator }, dispatcher: { warmCoreTools: false, maxAttempts: 1 }, deps: { grants } });
    client = connectClient(dispatcher.grpc.address);
    // Both providers are live (the operator sees them) before anything is compared.
    const end = Date.now() + 10_000;
    while (Date.now() < end && (await client.listTools({}, { metadata: ops })).categories.length < 2) await new Promise((r) => setTimeout(r, 20));
  });

  afterAll(async () => {
    client.close();
    await dispatcher.close(100);
    for (const a of adapters) await a.close();
    await bus.close();
    authenticator.close();
    grants.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** What a caller can learn from an error: code, message with the provider name blanked, suggestions. */
  const shape = (err: CallError, provider: string) => ({ code: err.code, details: err.details.split(provider).join('<P>'), suggestions: err.info?.suggestions, parentPath: err.info?.parentPath });

  it('lists the same NOT_FOUND as a missing provider, naming only visible providers', async () => {
    expect((await client.listTools({ provider: 'vault' }, { metadata: ops })).categories.length).toBeGreaterThan(0);
    const hidden = await failure(client.listTools({ provider: 'vault' }, { metadata: agent }));
    const missing = await failure(client.listTools({ provider: 'nope' }, { metadata: agent }));
    expect(hidden.code).toBe(status.NOT_FOUND);
    expect(shape(hidden, 'vault')).toEqual(shape(missing, 'nope'));
    expect(missing.details).toContain('Known providers: local.');
    expect(missing.info?.suggestions).toEqual(['local']);
    expect(JSON.stringify([hidden.details, hidden.info, missing.details, missing.info])).not.toMatch(/read_secret|store|"vault"[^.]*Known|Known providers: [^.]*vault/);
    // A path under the hidden provider says nothing more than one under a missing provider.
    const hiddenPath = await failure(client.listTools({ provider: 'vault', path: 'store' }, { metadata: agent }));
    const missingPath = await failure(client.listTools({ provider: 'nope', path: 'store' }, { metadata: agent }));
    expect(shape(hiddenPath, 'vault')).toEqual(shape(missingPath, 'nope'));
  });

  it('answers tool info and RunTool on it like on a tool of a missing provider', async () => {
    const hidden = await failure(client.getToolInfo({ provider: 'vault', name: 'read_secret' }, { metadata: agent }));
    const missing = await failure(client.getToolInfo({ provider: 'nope', name: 'read_secret' }, { metadata: agent }));
    expect(hidden.code).toBe(status.NOT_FOUND);
    expect(shape(hidden, 'vault')).toEqual(shape(missing, 'nope'));
    const hiddenRun = await failure(client.runTool({ provider: 'vault', name: 'read_secret', timeoutMs: 5000 }, { metadata: agent }));
    const missingRun = await failure(client.runTool({ provider: 'nope', name: 'read_secret', timeoutMs: 5000 }, { metadata: agent }));
    expect(shape(hiddenRun, 'vault')).toEqual(shape(missingRun, 'nope'));
    expect(hiddenRun.details).not.toMatch(/the secret/);
  });

  it('refuses a RunTools batch naming it before any call runs, like a batch naming a missing provider', async () => {
    const batch = (provider: string) => ({
      calls: [
        { id: 'visible', provider: 'local', name: 'echo_text', arguments: { text: 'hi' }, timeoutMs: 0, idempotencyKey: '', expectedVersion: '', after: [] },
        { id: 'secret', provider, name: 'read_secret', arguments: {}, timeoutMs: 0, idempotencyKey: '', expectedVersion: '', after: [] },
      ],
    });
    const hidden = await failure(client.runTools(batch('vault'), { metadata: agent }));
    const missing = await failure(client.runTools(batch('nope'), { metadata: agent }));
    expect(hidden.code).toBe(status.INVALID_ARGUMENT);
    expect(hidden.info!.violations.map((v) => v.field)).toEqual(['/calls/1']);
    expect(hidden.details).toContain('before any call ran');
    expect(shape(hidden, 'vault')).toEqual(shape(missing, 'nope'));
    expect(JSON.stringify([hidden.details, hidden.info])).not.toMatch(/the secret|store/);
    // The operator may see both, so the same batch runs for it.
    const ran = await client.runTools(batch('vault'), { metadata: ops });
    expect(ran.results.map((r) => r.result?.content[0]?.text)).toEqual(['hi', 'the secret']);
  });

  it('still names every provider to a caller that sees them all', async () => {
    const missing = await failure(client.listTools({ provider: 'nope' }, { metadata: ops }));
    expect(missing.details).toContain('Known providers: local, vault.');
  });
});
