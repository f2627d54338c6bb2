/** A registry on the embedded store behind its admin gRPC server, with a client: what the admin API tests start. */
import { credentials } from '@grpc/grpc-js';
import { InProcessBus } from '@toolhub/bus';
import { RegistryAdminClient } from '@toolhub/contracts';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type AdminServerOptions, Registry, type RunningAdminServer, startAdminServer } from '../../src';

export interface AdminStack {
  store: EmbeddedRegistryStore;
  registry: Registry;
  admin: RunningAdminServer;
  /** grpc-js's default limits, like the CLI and every other client. */
  client: RegistryAdminClient;
  close(): Promise<void>;
}

/** Starts the stack on a free port; `seed` fills the store before the client connects. */
export async function startAdminStack(options: Omit<AdminServerOptions, 'port'> = {}, seed?: (store: EmbeddedRegistryStore) => Promise<void>): Promise<AdminStack> {
  const dir = mkdtempSync(join(tmpdir(), 'registry-admin-'));
  const bus = new InProcessBus();
  const store = await EmbeddedRegistryStore.open({ dir });
  const registry = await Registry.start(bus, store);
  const admin = await startAdminServer(registry, { ...options, port: 0 });
  await seed?.(store);
  const client = new RegistryAdminClient(admin.address, credentials.createInsecure());
  return {
    store,
    registry,
    admin,
    client,
    async close() {
      client.close();
      await admin.close(100);
      await registry.close();
      await store.close();
      await bus.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
