/**
 * One trace spans the gRPC call, the dispatcher and the adapter, with the W3C trace context
 * travelling through real NATS headers between two separate bus connections.
 */
import { Metadata } from '@grpc/grpc-js';
import { type AdapterService, serveAdapter, staticCatalog, textResult } from '@toolhub/adapter-sdk';
import { NatsBus } from '@toolhub/bus';
import { natsUrl } from '@toolhub/test-harness';
import { setupTestTracing, type TestTracing } from '@toolhub/telemetry/testing';

import { type RunningDispatcher, startDispatcher } from '../src';
import { connectClient, type TestClient } from './support/grpc-client';

describe('tracing across dispatcher and adapter over NATS', () => {
  let tracing: TestTracing;
  let adapterBus: NatsBus;
  let dispatcherBus: NatsBus;
  let adapter: AdapterService;
  let running: RunningDispatcher;
  let client: TestClient;

  beforeAll(async () => {
    tracing = setupTestTracing();
    const url = await natsUrl();
    adapterBus = await NatsBus.connect({ servers: url, name: 'trace-test-adapter' });
    dispatcherBus = await NatsBus.connect({ servers: url, name: 'trace-test-dispatcher' });
    const catalog = staticCatalog('tracetest', [
      { name: 'echo_text', path: 'text', description: 'Echoes.', inputSchema: { type: 'object' }, run: async () => textResult('ok') },
    ]);
    adapter = await serveAdapter(adapterBus, { provider: 'tracetest', ...catalog });
    running = await startDispatcher(dispatcherBus, { grpc: { port: 0 } });
    client = connectClient(running.grpc.address);
  });

  afterAll(async () => {
    client.close();
    await running.close(100);
    await adapter.close();
    await Promise.all([adapterBus.close(), dispatcherBus.close()]);
    await tracing.shutdown();
  });

  it('puts the gRPC span, the dispatcher span and the adapter span in one trace, parent to child', async () => {
    const callerTraceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const metadata = new Metadata();
    metadata.set('traceparent', `00-${callerTraceId}-00f067aa0ba902b7-01`);
    await client.runTool({ provider: 'tracetest', name: 'echo_text' }, { metadata });

    const spans = tracing.spans().filter((s) => s.spanContext().traceId === callerTraceId);
    const byName = (prefix: string) => spans.find((s) => s.name.startsWith(prefix));
    const edge = byName('toolhub.v1.ToolHub/RunTool');
    const dispatch = byName('dispatcher.run');
    const adapterSpan = byName('adapter.run');
    expect(edge && dispatch && adapterSpan).toBeTruthy();
    expect(edge!.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(dispatch!.parentSpanContext?.spanId).toBe(edge!.spanContext().spanId);
    expect(adapterSpan!.parentSpanContext?.spanId).toBe(dispatch!.spanContext().spanId);
    expect(adapterSpan!.parentSpanContext?.isRemote).toBe(true);
  });
});
