/**
 * Shutdown and readiness on the API ports: the dispatcher's and the registry's API health services
 * follow the app's readiness, and the drain step turns them (and the ops readiness) NOT_SERVING
 * while calls are still answered, for TOOLHUB_SHUTDOWN_DELAY_MS, before anything closes.
 */
import { connectivityState, credentials } from '@grpc/grpc-js';
import { InProcessBus } from '@toolhub/bus';
import { ToolHubClient } from '@toolhub/contracts';
import { startDispatcher } from '@toolhub/dispatcher-core';
import { drainStep, Readiness, registryReadiness } from '@toolhub/ops';
import { Registry, startAdminServer } from '@toolhub/registry-core';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { waitFor } from '@toolhub/test-harness';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { healthClient } from './health-client';

describe('API health that follows readiness, and the drain step', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolhub-drain-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports the dispatcher API port NOT_SERVING while the app is not ready, SERVING when it is, and NOT_SERVING for good once draining', async () => {
    const bus = new InProcessBus();
    let ready = false;
    const running = await startDispatcher(bus, { grpc: { port: 0, ready: () => ready }, dispatcher: { warmCoreTools: false } });
    const health = healthClient(running.grpc.address);
    try {
      await waitFor(async () => (await health.check('')) === 'NOT_SERVING' && (await health.check('toolhub.v1.ToolHub')) === 'NOT_SERVING');
      ready = true;
      await waitFor(async () => (await health.check('')) === 'SERVING' && (await health.check('toolhub.v1.ToolHub')) === 'SERVING');
      // Drain: readiness off at once, the listener still answers.
      const readiness = new Readiness([], () => undefined);
      await readiness.start();
      let delayed = false;
      const step = drainStep({ ops: { readiness }, delayMs: 300, apis: [running.grpc] });
      const draining = step.run().then(() => (delayed = true));
      expect(await health.check('')).toBe('NOT_SERVING');
      expect(await health.check('toolhub.v1.ToolHub')).toBe('NOT_SERVING');
      expect(readiness.state).toMatchObject({ ready: false, failing: [{ name: 'shutdown' }] });
      expect(delayed).toBe(false);
      await draining;
      // Readiness coming back does not undo a drain.
      expect(await health.check('')).toBe('NOT_SERVING');
    } finally {
      health.close();
      await running.close(100);
      await bus.close();
    }
  });

  it('ends client connections after the maximum connection age, and the next call reconnects', async () => {
    const bus = new InProcessBus();
    const running = await startDispatcher(bus, { grpc: { port: 0, maxConnectionAgeMs: 300 }, dispatcher: { warmCoreTools: false } });
    const client = new ToolHubClient(running.grpc.address, credentials.createInsecure());
    const providers = () => new Promise<void>((resolve, reject) => client.listProviders({}, (err) => (err ? reject(err) : resolve())));
    try {
      await providers();
      const channel = client.getChannel();
      expect(channel.getConnectivityState(false)).toBe(connectivityState.READY);
      // GOAWAY after the age: the channel leaves READY by itself (no call made meanwhile).
      await waitFor(() => channel.getConnectivityState(false) !== connectivityState.READY, { timeoutMs: 10_000 });
      await providers();
    } finally {
      client.close();
      await running.close(100);
      await bus.close();
    }
  });

  it('reports the registry admin port by the app readiness too', async () => {
    const bus = new InProcessBus();
    const store = await EmbeddedRegistryStore.open({ dir: join(dir, 'registry') });
    const registry = await Registry.start(bus, store);
    let ready = true;
    const admin = await startAdminServer(registry, { port: 0, ready: () => ready });
    const health = healthClient(admin.address);
    try {
      await waitFor(async () => (await health.check('toolhub.v1.RegistryAdmin')) === 'SERVING');
      ready = false;
      await waitFor(async () => (await health.check('')) === 'NOT_SERVING' && (await health.check('toolhub.v1.RegistryAdmin')) === 'NOT_SERVING');
      admin.drain();
      ready = true;
      expect(await health.check('')).toBe('NOT_SERVING');
    } finally {
      health.close();
      await admin.close(100);
      await registry.close();
      await store.close();
      await bus.close();
    }
  });

  it('makes the registry not ready while its NATS connection is down, naming why', async () => {
    const bus = new InProcessBus();
    const store = await EmbeddedRegistryStore.open({ dir: join(dir, 'registry-nats') });
    const registry = await Registry.start(bus, store);
    let connected = true;
    const nats = { connection: () => ({ connected, detail: connected ? 'connected' : 'disconnected from nats://127.0.0.1:4222; reconnecting', sinceUnixMs: 0 }) };
    const readiness = new Readiness(registryReadiness(registry, store, nats), () => undefined);
    try {
      expect((await readiness.start()).ready).toBe(true);
      connected = false;
      expect(await readiness.evaluate()).toMatchObject({ ready: false, failing: [{ name: 'nats', reason: expect.stringMatching(/disconnected from nats/) }] });
      connected = true;
      expect((await readiness.evaluate()).ready).toBe(true);
    } finally {
      readiness.stop();
      await registry.close();
      await store.close();
      await bus.close();
    }
  });
});
