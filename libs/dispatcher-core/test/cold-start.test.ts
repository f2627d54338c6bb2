/** The first burst after a start: tool lookups are shared, and the validator is readied by the warm start. */
import { serveAdapter, staticCatalog, textResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import { type Bus, InProcessBus } from '@toolhub/bus';
import { adapterSubject, registrySubject, RunStatus, type ToolInfo } from '@toolhub/contracts';

import { type ArgumentsValidator, Dispatcher } from '../src';
import { waitFor } from '@toolhub/test-harness';

const objectSchema = { type: 'object', properties: { text: { type: 'string' } } };
const tools: ToolDefinition<never>[] = [
  { name: 'echo_text', path: 'text', description: 'Echoes text back.', inputSchema: objectSchema, run: async (a: { text?: string }) => textResult(a.text ?? '') },
  { name: 'core_echo', path: 'text', description: 'Echoes, and is core.', importance: 'core', inputSchema: objectSchema, run: async () => textResult('core') },
];

/** The in-process bus, counting requests by subject. */
function countingBus(): { bus: Bus; requests: Map<string, number>; close(): Promise<void> } {
  const inner = new InProcessBus();
  const requests = new Map<string, number>();
  const bus = Object.create(inner) as Bus;
  bus.request = (subject, data, options) => {
    requests.set(subject, (requests.get(subject) ?? 0) + 1);
    return inner.request(subject, data, options);
  };
  return { bus, requests, close: () => inner.close() };
}

describe('a dispatcher meeting a burst right after its start', () => {
  it('looks a tool up once for a burst of calls that all need it, not once per call', async () => {
    const { bus, requests, close } = countingBus();
    const adapter = await serveAdapter(bus, { provider: 'local', ...staticCatalog('local', tools) });
    const dispatcher = await Dispatcher.create(bus, { warmCoreTools: false });
    try {
      const call = { deadline: Date.now() + 30_000, requestId: 'burst' };
      const runs = await Promise.all(
        Array.from({ length: 20 }, (_, i) => dispatcher.runTool({ provider: 'local', name: 'echo_text', arguments: { text: `#${i}` }, timeoutMs: 0, idempotencyKey: '', expectedVersion: '', caller: '', searchId: '' }, call)),
      );
      expect(runs.map((r) => r.status)).toEqual(Array(20).fill(RunStatus.RUN_STATUS_OK));
      // No registry runs here: the registry is asked once, then the adapter once.
      expect(requests.get(registrySubject('info'))).toBe(1);
      expect(requests.get(adapterSubject('local', 'info'))).toBe(1);
      expect(requests.get(adapterSubject('local', 'run'))).toBe(20);
    } finally {
      await dispatcher.close();
      await adapter.close();
      await close();
    }
  });

  it('readies the argument validator and compiles the schemas of core tools at warm start', async () => {
    const { bus, close } = countingBus();
    const adapter = await serveAdapter(bus, { provider: 'local', ...staticCatalog('local', tools) });
    const seen: string[] = [];
    const validator: ArgumentsValidator = {
      validate: (_tool, args) => ({ args, fixes: [] }),
      warmUp: () => seen.push('warm-up'),
      prepare: (tool: ToolInfo) => seen.push(`prepare ${tool.id}`),
    };
    const dispatcher = await Dispatcher.create(bus, { warmCoreTools: false }, { validator });
    try {
      await waitFor(() => dispatcher.providers.has('local'), { timeoutMs: 10_000, intervalMs: 10, message: 'provider local to be seen' });
      expect(await dispatcher.warmCoreTools()).toBe(1);
      expect(seen).toEqual(['warm-up', 'prepare local:core_echo']);
    } finally {
      await dispatcher.close();
      await adapter.close();
      await close();
    }
  });
});
