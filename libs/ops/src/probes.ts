/**
 * Readiness checks per app, as the issue defines readiness:
 * - adapter: connected to NATS and its catalog announced (a health request to its own provider's
 *   subject crosses NATS and is answered by a served replica; serving starts after the announcement);
 * - registry: store reachable and the events consumer running;
 * - dispatcher: NATS and the registry reachable (a registry request crosses both).
 */
import type { Bus } from '@toolhub/bus';
import { AdapterHealthRequest, AdapterHealthResponse, adapterSubject, GetToolRequest, registrySubject } from '@toolhub/contracts';
import type { Registry } from '@toolhub/registry-core';

import type { ReadinessCheck } from './readiness';

const PROBE_TIMEOUT_MS = 2000;

/** Adapter readiness: its provider answers a health request over NATS and reports healthy. */
export function adapterReadiness(bus: Bus, provider: string): ReadinessCheck[] {
  return [
    {
      name: 'nats+catalog',
      check: async () => {
        const reply = await bus.request(adapterSubject(provider, 'health'), AdapterHealthRequest.encode({}).finish(), { timeoutMs: PROBE_TIMEOUT_MS });
        const health = AdapterHealthResponse.decode(reply.data);
        if (!health.healthy) throw new Error(`provider ${provider} reports unhealthy: ${health.detail}`);
      },
    },
  ];
}

/** Dispatcher readiness: a registry lookup over NATS gets an answer (any answer, "not found" included). */
export function dispatcherReadiness(bus: Bus): ReadinessCheck[] {
  return [
    {
      name: 'nats+registry',
      check: async () => {
        await bus.request(registrySubject('info'), GetToolRequest.encode({ provider: 'toolhub', name: 'readiness_probe' }).finish(), { timeoutMs: PROBE_TIMEOUT_MS });
      },
    },
  ];
}

/** Registry readiness: NATS connected, the store answers a read and the tool.called consumer runs. */
export function registryReadiness(registry: Registry, store: { getTool(provider: string, name: string): Promise<unknown> }, bus?: Pick<Bus, 'connection'>): ReadinessCheck[] {
  return [
    // Without NATS the registry answers no search or catalog request and its consumer takes no event.
    {
      name: 'nats',
      check: () => {
        const c = bus?.connection?.();
        if (c && !c.connected) throw new Error(c.detail || 'not connected to NATS');
      },
    },
    { name: 'store', check: async () => void (await store.getTool('toolhub', 'readiness_probe')) },
    {
      name: 'events consumer',
      check: () => {
        if (!registry.eventsConsumerRunning) throw new Error('the tool.called consumer is not running');
      },
    },
  ];
}
