/**
 * @toolhub/store/testing — the contract suite every RegistryStore implementation must pass.
 * Import it only from Jest test files: it declares `describe`/`it` blocks.
 *
 * @example
 * storeContractSuite('EmbeddedRegistryStore', async (options) => {
 *   const dir = await mkdtemp(join(tmpdir(), 'store-'));
 *   const store = await EmbeddedRegistryStore.open({ ...options, dir });
 *   return {
 *     store,
 *     reopen: (o) => EmbeddedRegistryStore.open({ ...o, dir }),
 *     cleanup: async () => { await store.close(); await rm(dir, { recursive: true, force: true }); },
 *   };
 * });
 */
import { catalogContract } from './contract/catalog';
import { deferredStatsContract } from './contract/deferred-stats';
import { durabilityContract } from './contract/durability';
import { auditContract } from './contract/audit';
import { preloadContract } from './contract/preload';
import { statsContract } from './contract/stats';
import { vectorsContract } from './contract/vectors';
import { learningContract } from './contract/learning';
import { type ContractContext, FakeClock, type StoreFactory, type StoreFixture } from './contract/support';
import type { RegistryStore } from './store';

export type { StoreFactory, StoreFixture } from './contract/support';
export { FakeClock, called, calls, tool } from './contract/support';

/** What a store under test does not promise (everything, unless said here). */
export interface StoreCapabilities {
  /**
   * Event ids counted before a restart are still refused after it. False for the embedded store
   * with `claims: 'memory'`: the restart tests then check only that start-up finishes what a crash
   * left behind, not that a redelivery after the restart is refused. @default true
   */
  claimsSurviveRestart?: boolean;
}

/**
 * Declares one Jest `describe` block, `<name> fulfils the RegistryStore contract`: catalog sync,
 * CRUD, duplicates refused, overlays surviving resyncs, preload revisions and conflicts, exact
 * statistics under duplicate, overlapping and concurrent batches, percentiles on a known
 * distribution, hourly buckets, persistence across restarts, crashes at every step of a write
 * followed by redelivery, statistics written later (`statsFlushMs`), search vectors, learned uses of learning from use, and close.
 *
 * `makeStore(options)` runs before each test and must return an empty store opened with `options`
 * (a fake clock); `reopen(options)` opens the same data again; `cleanup` runs after each test.
 */
export function storeContractSuite(name: string, makeStore: StoreFactory, capabilities: StoreCapabilities = {}): void {
  describe(`${name} fulfils the RegistryStore contract`, () => {
    const clock = new FakeClock();
    let fixture: StoreFixture | undefined;
    let current: RegistryStore | undefined;
    let reopened: RegistryStore[] = [];

    const ctx: ContractContext = {
      clock,
      claimsSurviveRestart: capabilities.claimsSurviveRestart ?? true,
      store: () => {
        if (!current) throw new Error('no store: makeStore failed or has not run');
        return current;
      },
      restart: async (options = {}) => {
        if (!fixture?.reopen) throw new Error(`${name}: the fixture has no reopen(); the durability tests need one to open the same data again.`);
        for (const store of [fixture.store, ...reopened]) await store.close();
        current = await fixture.reopen({ ...options, clock: clock.read });
        reopened.push(current);
        return current;
      },
    };

    beforeEach(async () => {
      clock.reset();
      reopened = [];
      fixture = await makeStore({ clock: clock.read });
      current = fixture.store;
    });

    afterEach(async () => {
      for (const store of reopened) await store.close().catch(() => undefined);
      await fixture?.cleanup();
      fixture = undefined;
      current = undefined;
    });

    catalogContract(ctx);
    preloadContract(ctx);
    statsContract(ctx);
    durabilityContract(ctx);
    deferredStatsContract(ctx);
    auditContract(ctx);
    vectorsContract(ctx);
    learningContract(ctx);
  });
}
