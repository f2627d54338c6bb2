/**
 * The search benchmark's registry in a process of its own, as deployed: opens the embedded store
 * the benchmark synced the catalog into (BENCH_STORE_DIR), starts the registry on NATS_URL and
 * serves search until SIGTERM. Spawned by registry.bench.ts; prints "bench registry ready".
 */
import { NatsBus } from '@toolhub/bus';
import { Registry } from '@toolhub/registry-core';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';

async function main(): Promise<void> {
  const dir = process.env['BENCH_STORE_DIR'];
  const servers = process.env['NATS_URL'];
  if (!dir || !servers) throw new Error('Set BENCH_STORE_DIR (an embedded store directory) and NATS_URL.');
  const bus = await NatsBus.connect({ servers, name: 'bench-registry-process' });
  const store = await EmbeddedRegistryStore.open({ dir });
  // No adapter announces the synced providers: keep them past the resync grace period.
  const registry = await Registry.start(bus, store, { statsConsumer: `bench_search_process_${process.pid}`, resync: { graceMs: 0 } });
  process.once('SIGTERM', () => {
    void (async () => {
      await registry.close();
      await store.close();
      await bus.close();
      process.exit(0);
    })();
  });
  process.stdout.write(`bench registry ready: ${registry.search.size} tools\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench registry failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
