import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { EmbeddedRegistryStore } from '../src/embedded';
import { storeContractSuite } from '../src/testing';

storeContractSuite('EmbeddedRegistryStore', async (options) => {
  const dir = await mkdtemp(join(tmpdir(), 'toolhub-store-'));
  const store = await EmbeddedRegistryStore.open({ ...options, dir });
  return {
    store,
    reopen: (reopenOptions) => EmbeddedRegistryStore.open({ ...reopenOptions, dir }),
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

// One-process mode keeps the claims in memory (nothing there can redeliver across a restart).
storeContractSuite(
  'EmbeddedRegistryStore with claims in memory',
  async (options) => {
    const dir = await mkdtemp(join(tmpdir(), 'toolhub-store-'));
    const store = await EmbeddedRegistryStore.open({ ...options, dir, claims: 'memory' });
    return {
      store,
      reopen: (reopenOptions) => EmbeddedRegistryStore.open({ ...reopenOptions, dir, claims: 'memory' }),
      cleanup: async () => {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
  { claimsSurviveRestart: false },
);
