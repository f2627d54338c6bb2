/** The Grafana dashboard only charts metrics the apps really export (a renamed metric breaks this test, not the dashboard). */
import { InProcessBus } from '@toolhub/bus';
import { startDispatcher } from '@toolhub/dispatcher-core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { registerAdapterMetrics, registerDispatcherMetrics, registerRegistryMetrics, startOps } from '../src';

const dashboard = JSON.parse(readFileSync(join(__dirname, '../../../deploy/grafana/toolhub.json'), 'utf8')) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };

describe('deploy/grafana/toolhub.json', () => {
  it('queries only metrics that the apps export', async () => {
    const bus = new InProcessBus();
    const running = await startDispatcher(bus, { grpc: { port: 0 } });
    const fakeRegistry = { ingested: 0, providerBinding: { refused: { catalog: 0, heartbeat: 0 } }, eventsConsumerRunning: true, statsStatus: async () => ({ statsLagEvents: 0, statsLagSeconds: 0, storeHealthy: true }), hybrid: { status: () => ({ tools: 4, embedded: 3 }) } };
    const ops = await startOps({
      app: 'all',
      config: { opsHost: '127.0.0.1', healthPort: -1, metricsPort: -1 },
      readiness: [],
      metrics: (r) => {
        registerDispatcherMetrics(r, running.dispatcher);
        registerRegistryMetrics(r, fakeRegistry as never);
        registerAdapterMetrics(r, { provider: 'local', inFlight: 0 } as never);
      },
    });
    try {
      const exported = new Set((await ops.registry.getMetricsAsJSON()).map((m) => m.name));
      const queried = new Set(dashboard.panels.flatMap((p) => p.targets.flatMap((t) => [...t.expr.matchAll(/\b((?:toolhub|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1]!))));
      const base = (name: string) => name.replace(/_(bucket|count|sum)$/, '');
      expect(queried.size).toBeGreaterThan(10);
      expect([...queried].filter((name) => !exported.has(name) && !exported.has(base(name)))).toEqual([]);
      // Every metric family ToolHub defines is on the dashboard.
      expect([...exported].filter((n) => n.startsWith('toolhub_') && ![...queried].some((q) => base(q) === n))).toEqual([]);
    } finally {
      await ops.close();
      await running.close(100);
      await bus.close();
    }
  });
});
