/** The registry's metrics, read at scrape time: statistics ingestion, consumer lag and state. */
import type { Registry as RegistryCore } from '@toolhub/registry-core';
import type { EdgeCounters } from '@toolhub/grpc-edge';
import { Counter, Gauge, type Registry } from 'prom-client';

import { registerEdgeMetrics } from './edge-metrics';

type StatsStatus = Awaited<ReturnType<RegistryCore['statsStatus']>>;

/** Registers the registry's metrics on `registry`; with `adminEdge`, also the admin port's toolhub_grpc_* metrics. */
export function registerRegistryMetrics(registry: Registry, core: RegistryCore, adminEdge?: EdgeCounters): void {
  const registers = [registry];
  // The admin API's connection guard (the one-process app counts it with the dispatcher's instead).
  if (adminEdge) registerEdgeMetrics(registry, [adminEdge]);
  // One consumer-info request to JetStream per scrape, shared by the gauges below.
  let cached: { at: number; status: Promise<StatsStatus> } | undefined;
  const status = (): Promise<StatsStatus> => {
    if (!cached || Date.now() - cached.at > 1000) cached = { at: Date.now(), status: core.statsStatus() };
    return cached.status;
  };
  new Counter({
    name: 'toolhub_registry_events_ingested_total',
    help: 'tool.called events written to the statistics store (rate() of it is the ingestion rate)',
    registers,
    collect() {
      this.reset();
      this.inc(core.ingested);
    },
  });
  new Counter({
    name: 'toolhub_registry_provider_mismatch_total',
    help: 'Catalog announcements and heartbeats refused: the provider in the subject (bound to the sender by NATS permissions) is not the one in the payload',
    labelNames: ['kind'] as const,
    registers,
    collect() {
      this.reset();
      for (const [kind, n] of Object.entries(core.providerBinding.refused)) this.inc({ kind }, n);
    },
  });
  new Gauge({
    name: 'toolhub_search_tools_embedded_ratio',
    help: 'share of indexed tools with a vector (0..1; hybrid search ranks only these semantically; 0 without an embeddings endpoint)',
    registers,
    collect() {
      const s = core.hybrid.status();
      this.set(s.tools === 0 ? 0 : s.embedded / s.tools);
    },
  });
  new Gauge({
    name: 'toolhub_registry_consumer_running',
    help: '1 while the durable tool.called consumer runs',
    registers,
    collect() {
      this.set(core.eventsConsumerRunning ? 1 : 0);
    },
  });
  new Gauge({
    name: 'toolhub_registry_consumer_lag_events',
    help: 'tool.called messages in JetStream not counted yet (the statistics consumer lag; a message holds one event or a dispatcher\'s batch of up to 64 by default)',
    registers,
    async collect() {
      this.set((await status()).statsLagEvents);
    },
  });
  new Gauge({
    name: 'toolhub_registry_consumer_lag_seconds',
    help: 'Age of the oldest tool.called event not counted yet',
    registers,
    async collect() {
      this.set((await status()).statsLagSeconds);
    },
  });
  new Gauge({
    name: 'toolhub_registry_store_healthy',
    help: '1 while writing statistics to the store succeeds',
    registers,
    async collect() {
      this.set((await status()).storeHealthy ? 1 : 0);
    },
  });
}
