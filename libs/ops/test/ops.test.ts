import { serveAdapter, staticCatalog, textResult, toolError, type ToolDefinition } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import type { ToolCalled } from '@toolhub/contracts';
import { startDispatcher } from '@toolhub/dispatcher-core';
import { Registry } from 'prom-client';

import { dispatcherReadiness, MAX_RUN_SERIES, registerAdapterMetrics, registerDispatcherMetrics, startOps } from '../src';
import { testEvent } from '../../dispatcher-core/test/support/events';
import { connectClient } from '../../dispatcher-core/test/support/grpc-client';
import { healthClient } from './health-client';

const ports = { opsHost: '127.0.0.1', healthPort: 0, metricsPort: 0 };

describe('operations endpoints', () => {
  it('reports readiness from the checks and liveness apart, over gRPC health and HTTP', async () => {
    let dependencyUp = false;
    const ops = await startOps({
      app: 'test-app',
      config: ports,
      readiness: [{ name: 'dependency', check: () => void (dependencyUp || (() => { throw new Error('dependency down'); })()) }],
    });
    const health = healthClient(ops.health!.address);
    const base = ops.metrics!.url.replace('/metrics', '');
    try {
      expect(await health.check('')).toBe('NOT_SERVING');
      expect(await health.check('readiness')).toBe('NOT_SERVING');
      expect(await health.check('liveness')).toBe('SERVING');
      const notReady = await fetch(`${base}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toMatchObject({ ready: false, failing: [{ name: 'dependency', reason: 'dependency down' }] });

      dependencyUp = true;
      await ops.readiness.evaluate();
      expect(await health.check('')).toBe('SERVING');
      expect(await health.check('readiness')).toBe('SERVING');
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      expect((await fetch(`${base}/livez`)).status).toBe(200);
      const metrics = await (await fetch(ops.metrics!.url)).text();
      expect(metrics).toMatch(/^process_resident_memory_bytes\{app="test-app"\} \d+/m);
    } finally {
      health.close();
      await ops.close();
    }
  });

  it('fails a check that does not answer in time, without waiting for it', async () => {
    const ops = await startOps({ app: 'slow', config: { ...ports, metricsPort: -1 }, readiness: [{ name: 'hung', check: () => new Promise(() => undefined) }] });
    try {
      expect(ops.metrics).toBeUndefined();
      expect(ops.readiness.state).toMatchObject({ ready: false, failing: [{ name: 'hung', reason: expect.stringContaining('no answer within') }] });
    } finally {
      await ops.close();
    }
  }, 10_000);

  it('counts the NATS permission violations of the app\'s bus as a metric', async () => {
    const bus = { permissionViolations: 0 };
    const ops = await startOps({ app: 'nats-user', config: { ...ports, healthPort: -1 }, readiness: [], bus });
    try {
      expect(await (await fetch(ops.metrics!.url)).text()).toMatch(/^toolhub_nats_permission_violations_total\{app="nats-user"\} 0$/m);
      bus.permissionViolations = 3;
      expect(await (await fetch(ops.metrics!.url)).text()).toMatch(/^toolhub_nats_permission_violations_total\{app="nats-user"\} 3$/m);
    } finally {
      await ops.close();
    }
  });

  it('refuses a non-loopback ops host unless TOOLHUB_OPS_PUBLIC opts in, naming what to set', async () => {
    for (const opsHost of ['0.0.0.0', '10.1.2.3', '::']) {
      await expect(startOps({ app: 'exposed', config: { ...ports, opsHost }, readiness: [] })).rejects.toThrow(
        new RegExp(`refuse to serve health and /metrics on ${opsHost.replace(/\./g, '\\.')}.*TOOLHUB_OPS_PUBLIC=1.*TOOLHUB_OPS_HOST=127\\.0\\.0\\.1`),
      );
    }
    await expect(startOps({ app: 'exposed', config: { ...ports, opsHost: '0.0.0.0', opsPublic: false }, readiness: [] })).rejects.toThrow(/TOOLHUB_OPS_PUBLIC/);
    const ops = await startOps({ app: 'public', config: { ...ports, opsHost: '0.0.0.0', opsPublic: true }, readiness: [] });
    expect(ops.metrics!.url).toMatch(/^http:\/\/.*:\d+\/metrics$/);
    await ops.close();
  });

  it('turns not ready on close, before the servers stop', async () => {
    const ops = await startOps({ app: 'closing', config: ports, readiness: [] });
    expect(ops.readiness.state.ready).toBe(true);
    await ops.close();
    expect(ops.readiness.state).toMatchObject({ ready: false, failing: [{ name: 'shutdown' }] });
  });
});

describe('dispatcher metrics', () => {
  const tools: ToolDefinition<never>[] = [
    { name: 'echo_text', path: 'text', description: 'Echoes text back.', inputSchema: { type: 'object' }, run: async () => textResult('hi') },
    { name: 'always_fails', path: 'text', description: 'Reports a failure.', inputSchema: { type: 'object' }, run: async () => toolError('broken') },
  ];

  it('counts every RunTool by provider, tool, status and code, and the RPCs by method', async () => {
    const bus = new InProcessBus();
    const adapter = await serveAdapter(bus, { provider: 'local', ...staticCatalog('local', tools) });
    const running = await startDispatcher(bus, { grpc: { port: 0 } });
    // The registry is not on this bus: the dispatcher is alive but not ready (it cannot reach it).
    const ops = await startOps({
      app: 'dispatcher',
      config: ports,
      readiness: dispatcherReadiness(bus),
      metrics: (r) => (registerDispatcherMetrics(r, running.dispatcher), registerAdapterMetrics(r, adapter)),
    });
    const client = connectClient(running.grpc.address);
    try {
      expect(ops.readiness.state).toMatchObject({ ready: false, failing: [{ name: 'nats+registry' }] });
      for (let i = 0; i < 7; i++) await client.runTool({ provider: 'local', name: 'echo_text', arguments: {} });
      for (let i = 0; i < 3; i++) await client.runTool({ provider: 'local', name: 'always_fails', arguments: {} });
      for (let i = 0; i < 2; i++) await client.runTool({ provider: 'local', name: 'no_such_tool', arguments: {} }).catch(() => undefined);

      const text = await (await fetch(ops.metrics!.url)).text();
      const count = (tool: string, status: string, code: string) =>
        Number(text.match(new RegExp(`^toolhub_runtool_duration_seconds_count\\{app="dispatcher",provider="local",tool="${tool}",status="${status}",code="${code}"\\} (\\d+)$`, 'm'))?.[1]);
      expect(count('echo_text', 'ok', 'unspecified')).toBe(7);
      expect(count('always_fails', 'tool_error', 'failed')).toBe(3);
      expect(count('no_such_tool', 'not_found', 'not_found')).toBe(2);
      expect(text).toMatch(/^toolhub_grpc_server_duration_seconds_count\{app="dispatcher",method="toolhub.v1.ToolHub\/RunTool",code="0"\} 10$/m);
      expect(text).toMatch(/^toolhub_grpc_server_duration_seconds_count\{app="dispatcher",method="toolhub.v1.ToolHub\/RunTool",code="5"\} 2$/m);
      expect(text).toMatch(/^toolhub_provider_replicas\{provider="local",app="dispatcher"\} 1$/m);
      expect(text).toMatch(/^toolhub_cache_hits_total\{app="dispatcher"\} \d+$/m);
      expect(text).toMatch(/^toolhub_event_outbox_depth\{app="dispatcher"\} \d+$/m);
      expect(text).toMatch(/^toolhub_adapter_runs_inflight\{provider="local",app="dispatcher"\} 0$/m);
    } finally {
      client.close();
      await ops.close();
      await running.close(100);
      await adapter.close();
      await bus.close();
    }
  });

  it(`keeps at most MAX_RUN_SERIES RunTool series and counts calls past them under tool="_other"`, async () => {
    const bus = new InProcessBus();
    const running = await startDispatcher(bus, { grpc: { port: 0 } });
    const registry = new Registry();
    registerDispatcherMetrics(registry, running.dispatcher);
    const event = (name: string, status = 'ok'): ToolCalled => testEvent(0, { eventId: `${name}-${status}`, toolId: `local:${name}`, name, status });
    try {
      // Callers choose tool names: 10 more distinct ones than the cap, then a known series again.
      for (let i = 0; i < MAX_RUN_SERIES + 10; i++) running.dispatcher.callEvents.emit(event(`tool_${i}`));
      running.dispatcher.callEvents.emit(event('tool_0'));
      running.dispatcher.callEvents.emit(event('tool_0', 'timeout'));
      const counts = (await registry.getSingleMetric('toolhub_runtool_duration_seconds')!.get()).values.filter((v) => (v as { metricName?: string }).metricName === 'toolhub_runtool_duration_seconds_count');
      const byTool = new Map(counts.map((v) => [`${v.labels.tool}/${v.labels.status}`, v.value]));
      expect(counts.length).toBe(MAX_RUN_SERIES + 2); // and _other for ok and for timeout
      expect(byTool.get('_other/ok')).toBe(10);
      expect(byTool.get('tool_0/ok')).toBe(2);
      expect(byTool.get('_other/timeout')).toBe(1); // a new series past the cap, even for a known tool
      expect(byTool.has(`tool_${MAX_RUN_SERIES}/ok`)).toBe(false);
    } finally {
      await running.close(100);
      await bus.close();
    }
  });
});
