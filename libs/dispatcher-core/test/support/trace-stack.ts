/**
 * A dispatcher and an adapter on two bus connections, for the trace propagation tests: `runTool`
 * makes a RunTool call with the given gRPC metadata and returns the trace headers of the run request
 * the adapter received over NATS (a plain subscriber on the run subject sees every request, headers
 * included).
 */
import { Metadata } from '@grpc/grpc-js';
import { type AdapterService, serveAdapter, staticCatalog, textResult } from '@toolhub/adapter-sdk';
import { NatsBus } from '@toolhub/bus';
import { adapterSubject } from '@toolhub/contracts';
import { natsUrl } from '@toolhub/test-harness';

import { type RunningDispatcher, startDispatcher } from '../../src';
import { connectClient, type TestClient } from './grpc-client';

/** The trace headers of one run request as the adapter received it (absent ones are `undefined`). */
export interface SeenHeaders {
  traceparent?: string;
  tracestate?: string;
}

export interface TraceStack {
  /** Runs the provider's `echo_text` with these metadata entries; resolves with what the adapter saw. */
  runTool(metadata?: Record<string, string>): Promise<SeenHeaders>;
  close(): Promise<void>;
}

export async function startTraceStack(provider: string): Promise<TraceStack> {
  const url = await natsUrl();
  const adapterBus = await NatsBus.connect({ servers: url, name: `${provider}-adapter` });
  const dispatcherBus = await NatsBus.connect({ servers: url, name: `${provider}-dispatcher` });
  let adapter: AdapterService | undefined;
  let running: RunningDispatcher | undefined;
  let client: TestClient | undefined;
  const seen: SeenHeaders[] = [];
  try {
    const catalog = staticCatalog(provider, [
      { name: 'echo_text', path: 'text', description: 'Echoes.', inputSchema: { type: 'object' }, run: async () => textResult('ok') },
    ]);
    adapter = await serveAdapter(adapterBus, { provider, ...catalog });
    await adapterBus.subscribe(adapterSubject(provider, 'run'), (m) => void seen.push({ traceparent: m.headers['traceparent'], tracestate: m.headers['tracestate'] }));
    running = await startDispatcher(dispatcherBus, { grpc: { port: 0 } });
    client = connectClient(running.grpc.address);
  } catch (err) {
    client?.close();
    await running?.close(100);
    await adapter?.close();
    await Promise.all([adapterBus.close(), dispatcherBus.close()]);
    throw err;
  }
  const c = client;
  return {
    async runTool(entries = {}) {
      const metadata = new Metadata();
      for (const [k, v] of Object.entries(entries)) metadata.set(k, v);
      const before = seen.length;
      const res = await c.runTool({ provider, name: 'echo_text' }, { metadata });
      expect(res.servedBy).toBe(`${provider}:echo_text`);
      // The subscriber's copy arrived on the adapter's connection with the request itself.
      for (const stop = Date.now() + 5000; seen.length === before && Date.now() < stop; ) await new Promise((r) => setTimeout(r, 10));
      expect(seen.length).toBe(before + 1);
      return seen.at(-1)!;
    },
    async close() {
      c.close();
      await running!.close(100);
      await adapter!.close();
      await Promise.all([adapterBus.close(), dispatcherBus.close()]);
    },
  };
}
