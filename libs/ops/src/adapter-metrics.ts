/** An adapter's metrics, read at scrape time. */
import type { AdapterService } from '@toolhub/adapter-sdk';
import { Gauge, type Registry } from 'prom-client';

/** Registers the adapter service's metrics on `registry`. */
export function registerAdapterMetrics(registry: Registry, service: AdapterService): void {
  new Gauge({
    name: 'toolhub_adapter_runs_inflight',
    help: 'Runs this adapter replica is executing',
    labelNames: ['provider'] as const,
    registers: [registry],
    collect() {
      this.set({ provider: service.provider }, service.inFlight);
    },
  });
}
