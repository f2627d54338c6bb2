/**
 * adapter-cloud end to end, every part in its own process: a real nats-server, the registry (on a
 * MongoDB wire-protocol server), the dispatcher, adapter-cloud, and Prism (offline) serving the
 * real-world Swagger Petstore document. Driven through the dispatcher's gRPC API as an agent would,
 * including calls the adapter must refuse (SSRF): a server URL template that defaults to the cloud
 * metadata address, and the very same Prism server through a document that did not allowlist it.
 */
import { status } from '@grpc/grpc-js';
import { freePort, mongoUrl, type NatsServerHandle, scratchDir, spawnProcess, type SpawnedProcess, startNatsServer, waitFor } from '@toolhub/test-harness';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { RunStatus, type ToolStats } from '@toolhub/contracts';
import {
  type AgentClient,
  connectAgent,
  failure,
  PETSTORE_DOCUMENT,
  PRISM_ENTRY,
  type RegistryProcess,
  startApp,
  startDispatcherProcess,
  startRegistry,
  statsBaseline,
  textOf,
} from './support/stack';

jest.setTimeout(60_000);

/** An OpenAPI document whose only server is a URL template defaulting to the metadata service. */
const METADATA_DOCUMENT = `openapi: 3.0.3
info: { title: Instance metadata, version: '1' }
servers:
  - url: 'http://{host}/latest'
    variables: { host: { default: 169.254.169.254 } }
paths:
  /meta-data/iam/security-credentials:
    get:
      operationId: readCredentials
      summary: Reads the instance role credentials.
      responses: { '200': { description: ok } }
`;

function cloudConfig(prismPort: number, configDir: string): string {
  return [
    'provider: cloud',
    'defaults: { timeout: 10s, retries: 0 }',
    'documents:',
    // The petstore at Prism, allowlisted explicitly (loopback is never reached otherwise).
    `  - { alias: petstore, source: "${PETSTORE_DOCUMENT}", baseUrl: "http://127.0.0.1:${prismPort}", mount: demo/petstore, allowedHosts: ["127.0.0.1:${prismPort}"] }`,
    // The same server through a document that does not list it: loopback is refused.
    `  - { alias: shadow, source: "${PETSTORE_DOCUMENT}", baseUrl: "http://127.0.0.1:${prismPort}", mount: internal/shadow, include: [showPetById] }`,
    // Base URL from the document's server template: 169.254.169.254, refused always.
    `  - { alias: meta, source: "${join(configDir, 'metadata.yaml')}", mount: internal/meta }`,
    '',
  ].join('\n');
}

describe('agent → dispatcher → NATS → adapter-cloud → Prism (Swagger Petstore), as separate processes', () => {
  let prism: SpawnedProcess;
  let registry: RegistryProcess;
  let natsServer: NatsServerHandle | undefined;
  let dispatcher: SpawnedProcess;
  let adapter: SpawnedProcess;
  let agent: AgentClient;
  /** Statistics the registry had before this file made any call (see statsBaseline). */
  let baseline: Map<string, ToolStats | undefined>;
  const run = (name: string, args: Record<string, unknown> = {}) => agent.runTool({ provider: 'cloud', name, arguments: args, caller: 'e2e-cloud' });
  /** Requests Prism has logged so far. */
  const prismRequests = () => (prism.output().match(/Request received/g) ?? []).length;

  beforeAll(async () => {
    // A private nats-server, even when NATS_URL names a shared one: the registry's new stats consumer
    // then replays only this file's events, not every earlier suite's (see statsBaseline).
    natsServer = await startNatsServer();
    const nats = natsServer.url;
    const mongo = await mongoUrl();
    const prismPort = await freePort();
    const configDir = scratchDir('e2e-cloud-config');
    writeFileSync(join(configDir, 'metadata.yaml'), METADATA_DOCUMENT);
    writeFileSync(join(configDir, 'cloud.yaml'), cloudConfig(prismPort, configDir));

    let started: { proc: SpawnedProcess; address: string };
    [prism, registry, started] = await Promise.all([
      // --errors: requests that break the document are answered 422 instead of a made-up success.
      spawnProcess(process.execPath, [PRISM_ENTRY, 'mock', '-h', '127.0.0.1', '-p', String(prismPort), '--errors', PETSTORE_DOCUMENT], { readyPattern: /Prism is listening/, timeoutMs: 90_000 }),
      startRegistry(nats, mongo, 'cloud'),
      startDispatcherProcess(nats),
    ]);
    dispatcher = started.proc;
    agent = connectAgent(started.address);
    adapter = await startApp('adapter-cloud', { NATS_URL: nats, TOOLHUB_CLOUD_CONFIG: join(configDir, 'cloud.yaml') }, /adapter-cloud ready/);
    await waitFor(async () => (await agent.listTools({ provider: '' })).categories.some((c) => c.name === 'cloud'), { timeoutMs: 30_000, message: 'provider cloud at the dispatcher' });
    await waitFor(async () => (await registry.admin.listRegisteredTools('cloud')).length >= 5, { timeoutMs: 30_000, message: 'the cloud catalog in the registry' });
    baseline = await statsBaseline(nats, registry.admin, ['cloud:meta_read_credentials', 'cloud:petstore_show_pet_by_id']);
  }, 180_000);

  afterAll(async () => {
    agent?.close();
    await adapter?.kill('SIGTERM');
    await dispatcher?.kill('SIGTERM');
    await registry?.stop();
    await natsServer?.dispose();
    await prism?.kill('SIGTERM');
  });

  it("warns at start-up that the metadata document's tools will always be refused", () => {
    expect(adapter.output()).toContain('Document \\"meta\\" calls http://169.254.169.254, a metadata or link-local address that is never called');
  });

  it('lists provider cloud and its tree, one category per document mount and tag', async () => {
    const root = await agent.listTools({ provider: 'cloud' });
    expect(root.categories.map((c) => c.path).sort()).toEqual(['demo', 'internal']);
    const petstore = await agent.listTools({ provider: 'cloud', path: 'demo/petstore' });
    expect(petstore.categories.map((c) => c.path)).toEqual(['demo/petstore/pets']);
    const pets = await agent.listTools({ provider: 'cloud', path: 'demo/petstore/pets' });
    expect(pets.tools.map((t) => t.id).sort()).toEqual(['cloud:petstore_create_pets', 'cloud:petstore_list_pets', 'cloud:petstore_show_pet_by_id']);
    expect(pets.tools.find((t) => t.name === 'petstore_list_pets')?.summary).toMatch(/List all pets/);
  });

  it("gets a tool's info: snake_case parameters, the HTTP call it makes, MCP-style annotations", async () => {
    const info = (await agent.getToolInfo({ provider: 'cloud', name: 'petstore_show_pet_by_id' })).tool!;
    expect(info).toMatchObject({ id: 'cloud:petstore_show_pet_by_id', path: 'demo/petstore/pets', annotations: { readOnly: true, idempotent: true, openWorld: true } });
    expect(info.inputSchema).toMatchObject({ type: 'object', required: ['pet_id'], properties: { pet_id: expect.any(Object) } });
    expect(info.description).toContain('Calls GET /pets/{petId} of Swagger Petstore.');
  });

  it('lists pets, gets a pet by id and creates a pet through the real HTTP server', async () => {
    const listed = await run('petstore_list_pets', { limit: 2 });
    expect(listed.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(Array.isArray(listed.structured)).toBe(true);
    for (const pet of listed.structured as Array<Record<string, unknown>>) expect(pet).toEqual(expect.objectContaining({ id: expect.any(Number), name: expect.any(String) }));

    const shown = await run('petstore_show_pet_by_id', { pet_id: '42' });
    expect(shown.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(shown.structured).toEqual(expect.objectContaining({ id: expect.any(Number), name: expect.any(String) }));

    const created = await run('petstore_create_pets', { body: { id: 7, name: 'Rex', tag: 'dog' } });
    expect(created.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(textOf(created)).toMatch(/^HTTP 201 Created/);
  });

  it('repairs what is safe (a number where the API wants a string) and reports the fix', async () => {
    const shown = await run('petstore_show_pet_by_id', { pet_id: 42 });
    expect(shown.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(shown.fixes.map((f) => f.field)).toEqual(expect.arrayContaining([expect.stringContaining('pet_id')]));
  });

  it('refuses a call to the metadata address with PERMISSION_DENIED and a clear message', async () => {
    const err = await failure(run('meta_read_credentials'));
    expect(err.code).toBe(status.PERMISSION_DENIED);
    expect(err.details).toMatch(/^Refused to call 169\.254\.169\.254: .*cloud metadata address, which is never called/);
  });

  it('refuses a loopback server that the document did not allowlist, before any request is sent', async () => {
    const before = prismRequests();
    const err = await failure(run('shadow_show_pet_by_id', { pet_id: '1' }));
    expect(err.code).toBe(status.PERMISSION_DENIED);
    expect(err.details).toMatch(/127\.0\.0\.1 is a loopback address; list the host in allowedHosts to call it/);
    // The same server answers the allowlisted document's call, and only that one reached it.
    expect((await run('petstore_show_pet_by_id', { pet_id: '1' })).status).toBe(RunStatus.RUN_STATUS_OK);
    await waitFor(() => prismRequests() === before + 1, { timeoutMs: 5000, message: 'Prism to log exactly one request' });
  });

  it('shows the cloud tools in the registry catalog and finds them with tool search', async () => {
    const registered = (await registry.admin.listRegisteredTools('cloud')).map((t) => t.tool!.name).sort();
    expect(registered).toEqual(['meta_read_credentials', 'petstore_create_pets', 'petstore_list_pets', 'petstore_show_pet_by_id', 'shadow_show_pet_by_id']);
    const search = await agent.searchTools({ queries: ['create a new pet'], limit: 3 });
    expect(search.hits).toContainEqual(expect.objectContaining({ id: 'cloud:petstore_create_pets', provider: 'cloud', path: 'demo/petstore/pets' }));
    // Filtered to a category path: the petstore tools, not the refused documents under internal/.
    const info = await agent.searchTools({ queries: ['info for a specific pet'], provider: 'cloud', path: 'demo', limit: 3 });
    expect(info.hits.map((h) => h.id)).toContain('cloud:petstore_show_pet_by_id');
    expect(info.hits.map((h) => h.id)).not.toContain('cloud:shadow_show_pet_by_id');
  });

  it('counts every run, refused ones included, in the statistics', async () => {
    const delta = async (id: string) => {
      const now = await registry.admin.getToolStats(id);
      const before = baseline.get(id);
      return {
        calls: Number(now?.calls ?? 0) - Number(before?.calls ?? 0),
        successes: Number(now?.successes ?? 0) - Number(before?.successes ?? 0),
        permissionDenied: Number(now?.failures['permission_denied'] ?? 0) - Number(before?.failures['permission_denied'] ?? 0),
      };
    };
    await waitFor(async () => (await delta('cloud:meta_read_credentials')).calls >= 1 && (await delta('cloud:petstore_show_pet_by_id')).calls >= 3, {
      timeoutMs: 15_000,
      intervalMs: 200,
      message: 'the statistics of this run',
    });
    expect(await delta('cloud:meta_read_credentials')).toEqual({ calls: 1, successes: 0, permissionDenied: 1 });
    expect(await delta('cloud:petstore_show_pet_by_id')).toEqual({ calls: 3, successes: 3, permissionDenied: 0 });
  });
});
