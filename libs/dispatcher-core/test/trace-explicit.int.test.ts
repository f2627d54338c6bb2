/**
 * With nothing exported, telemetry registers no async context manager (it would tax every promise
 * of the process), so the active span does not follow a call: the dispatcher passes the caller's
 * trace context on explicitly, and an adapter still receives the caller's trace id over real NATS.
 */
import { Metadata } from '@grpc/grpc-js';
import { context, trace } from '@opentelemetry/api';
import { type AdapterService, serveAdapter, staticCatalog, textResult } from '@toolhub/adapter-sdk';
import { NatsBus } from '@toolhub/bus';
import { adapterSubject } from '@toolhub/contracts';
import { natsUrl } from '@toolhub/test-harness';
import { initTelemetry, type Telemetry } from '@toolhub/telemetry';

import { type RunningDispatcher, startDispatcher } from '../src';
import { connectClient, type TestClient } from './support/grpc-client';

describe('trace context without an async context manager (nothing exported)', () => {
  let telemetry: Telemetry;
  let adapterBus: NatsBus;
  let dispatcherBus: NatsBus;
  let adapter: AdapterService;
  let running: RunningDispatcher;
  let client: TestClient;
  const seen: string[] = [];

  beforeAll(async () => {
    telemetry = initTelemetry({ serviceName: 'trace-explicit', exporter: 'none', env: {} });
    const url = await natsUrl();
    adapterBus = await NatsBus.connect({ servers: url, name: 'trace-explicit-adapter' });
    dispatcherBus = await NatsBus.connect({ servers: url, name: 'trace-explicit-dispatcher' });
    const catalog = staticCatalog('traceexplicit', [
      { name: 'echo_text', path: 'text', description: 'Echoes.', inputSchema: { type: 'object' }, run: async () => textResult('ok') },
    ]);
    adapter = await serveAdapter(adapterBus, { provider: 'traceexplicit', ...catalog });
    // A plain (non-queue) subscriber sees every run request the adapter gets, headers included.
    await adapterBus.subscribe(adapterSubject('traceexplicit', 'run'), (m) => void seen.push(m.headers['traceparent'] ?? ''));
    running = await startDispatcher(dispatcherBus, { grpc: { port: 0 } });
    client = connectClient(running.grpc.address);
  });

  afterAll(async () => {
    client.close();
    await running.close(100);
    await adapter.close();
    await Promise.all([adapterBus.close(), dispatcherBus.close()]);
    await telemetry.shutdown();
  });

  it('has no active span across an await (no context manager)', async () => {
    const span = trace.getTracer('t').startSpan('probe');
    await context.with(trace.setSpan(context.active(), span), async () => {
      await Promise.resolve();
      expect(trace.getActiveSpan()).toBeUndefined();
    });
    span.end();
  });

  it("forwards the caller's trace id to the adapter", async () => {
    const callerTraceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const metadata = new Metadata();
    metadata.set('traceparent', `00-${callerTraceId}-00f067aa0ba902b7-01`);
    const res = await client.runTool({ provider: 'traceexplicit', name: 'echo_text' }, { metadata });
    expect(res.servedBy).toBe('traceexplicit:echo_text');
    expect(seen.at(-1)).toMatch(new RegExp(`^00-${callerTraceId}-[0-9a-f]{16}-01$`));
    // The parent is the dispatcher's server span for the call, not the caller's own span.
    expect(seen.at(-1)).not.toContain('00f067aa0ba902b7');
  });
});
