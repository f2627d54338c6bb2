/**
 * The benchmark's adapter definition: provider `bench`, one no-op tool `noop` (read-only, returns
 * "ok"), plus any `noop_<n>`, so every GetToolInfo of a new n is a genuine cache miss. Served as its
 * own process by noop-adapter.ts; imported by the benches for in-process measurements.
 */
import { type AdapterDefinition, staticCatalog, textResult, type ToolDefinition, toToolInfo } from '@toolhub/adapter-sdk';
import { ToolHubError } from '@toolhub/contracts';

export const BENCH_PROVIDER = 'bench';
/** The one method of bare-relay.ts (raw bytes in and out). */
export const RELAY_METHOD = '/bench.Relay/Run';

/** The no-op tool: its run does nothing but answer. */
export const noopTool: ToolDefinition<never> = {
  name: 'noop',
  path: 'bench',
  description: 'Does nothing and answers "ok". For benchmarks only.',
  inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
  annotations: { readOnly: true, idempotent: true, destructive: false, openWorld: false },
  run: async () => textResult('ok'),
};

const NAME = /^noop(?:_\d{1,9})?$/;

/** The adapter: `noop` plus a `noop_<n>` for every n, all running the same no-op. */
export function benchAdapter(): AdapterDefinition {
  const base = staticCatalog(BENCH_PROVIDER, [noopTool]);
  return {
    ...base,
    provider: BENCH_PROVIDER,
    async getToolInfo(name) {
      if (!NAME.test(name)) throw ToolHubError.notFound(`Provider bench has no tool ${JSON.stringify(name)}; its tools are noop and noop_<n>.`, ['noop']);
      return toToolInfo(BENCH_PROVIDER, { ...noopTool, name });
    },
    async runTool(name, args, ctx) {
      if (!NAME.test(name)) throw ToolHubError.notFound(`Provider bench has no tool ${JSON.stringify(name)}.`, ['noop']);
      return noopTool.run(args as never, ctx);
    },
  };
}
