/**
 * A rolling restart under steady load loses no call: two replicas each of the dispatcher and of
 * adapter-local, run from what their charts render (NATS with the shipped users and permissions),
 * an agent load spread over the ready dispatchers, and each replica replaced the way a Deployment
 * with maxUnavailable 0 does it: a new pod starts and passes its readiness probe, then the old one
 * leaves the endpoints, runs its preStop hook (as rendered: `sleep shutdown.preStopSeconds`) and
 * gets SIGTERM. The load's client balances over the endpoints that are ready, as a gRPC client with
 * round_robin over a headless Service (or a mesh) does. Calls failed must be 0.
 */
import { RunStatus } from '@toolhub/contracts';
import { freePort, mongoUrl, type NatsServerHandle, redisUrl, startNatsServer, waitFor } from '@toolhub/test-harness';
import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';

import { healthClient } from '../../libs/ops/test/health-client';
import { keyMetadata } from '../deploy/support/clients';
import { connectAgent, type AgentClient } from '../e2e/support/stack';
import { type Component, NATS_USERS, render, ROOT, run, type Running, shippedNatsConfig, start, tool } from './support/chart-runner';

jest.setTimeout(600_000);

describe('a rolling restart under steady load', () => {
  let helm: string;
  let nats: NatsServerHandle;
  let mongo: string;
  let redis: string;
  const suffix = randomUUID().slice(0, 8);
  const apiKey = `rolling-${randomUUID()}`;
  const apiKeys = JSON.stringify({ keys: [{ name: 'rolling', sha256: createHash('sha256').update(apiKey).digest('hex'), roles: ['agent'] }] });
  const passwords = Object.fromEntries(['dispatcher', 'registry', 'adapter_local', 'adapter_mcp', 'adapter_cloud', 'admin'].map((u) => [u, `${u}-${randomUUID()}`]));
  const pods: Record<'registry' | 'dispatcher' | 'adapter-local', Running[]> = { registry: [], dispatcher: [], 'adapter-local': [] };
  /** The dispatchers the load may call (the Service's ready endpoints). */
  const endpoints = new Map<Running, AgentClient>();

  /** A new pod of `component` from its chart (fresh ports), once its readiness probe is SERVING. */
  async function newPod(component: 'registry' | 'dispatcher' | 'adapter-local'): Promise<Running> {
    const user = NATS_USERS[component];
    const values: Record<string, unknown> = { nats: { url: nats.url, auth: { enabled: true, user, password: passwords[user] } }, ports: { health: await freePort(), metrics: await freePort() } };
    if (component !== 'adapter-local') Object.assign(values, { auth: { existingSecret: '', apiKeys } });
    if (component !== 'adapter-local') (values['ports'] as Record<string, number>)['api'] = await freePort();
    if (component === 'dispatcher') values['secret'] = { values: { REDIS_URL: redis } };
    if (component === 'registry') Object.assign(values, { secret: { values: { MONGO_URL: mongo } }, env: { TOOLHUB_MONGO_DB: `rolling_${suffix}`, TOOLHUB_STATS_CONSUMER: `rolling_${suffix}` } });
    const pod = await start(component as Component, await render(helm, component as Component, values));
    const probe = healthClient(`127.0.0.1:${pod.port('grpc-health')}`);
    try {
      await waitFor(async () => (await probe.check('readiness').catch(() => 'UNREACHABLE')) === 'SERVING', { timeoutMs: 120_000, intervalMs: 250, message: `${component} readiness` }).catch((err: Error) => {
        throw new Error(`${err.message}\n${pod.proc.output().slice(-3000)}`);
      });
    } finally {
      probe.close();
    }
    pods[component].push(pod);
    if (component === 'dispatcher') endpoints.set(pod, connectAgent(`127.0.0.1:${pod.port('grpc-api')}`));
    return pod;
  }

  /** The kubelet's termination: out of the endpoints, the preStop hook as rendered, then SIGTERM. */
  async function terminate(pod: Running): Promise<void> {
    const client = endpoints.get(pod);
    endpoints.delete(pod);
    const preStop = pod.container.lifecycle?.preStop?.exec?.command;
    if (!preStop) throw new Error(`${pod.component} renders no preStop hook`);
    await run(preStop[0]!, preStop.slice(1));
    await pod.proc.kill('SIGTERM');
    client?.close();
    pods[pod.component as 'dispatcher' | 'adapter-local'].splice(pods[pod.component as 'dispatcher' | 'adapter-local'].indexOf(pod), 1);
  }

  /** Replaces every pod of `component`, one at a time (maxSurge 1, maxUnavailable 0). */
  async function rollingRestart(component: 'dispatcher' | 'adapter-local'): Promise<void> {
    for (const old of [...pods[component]]) {
      await newPod(component);
      await terminate(old);
    }
  }

  beforeAll(async () => {
    helm = tool('HELM', 'helm');
    execFileSync(process.execPath, ['scripts/build-apps.mjs', 'registry', 'dispatcher', 'adapter-local'], { cwd: ROOT, stdio: 'pipe' });
    for (const c of ['registry', 'dispatcher', 'adapter-local']) await run(helm, ['dependency', 'build', join(ROOT, 'deploy/helm', c)]);
    nats = await startNatsServer({ config: shippedNatsConfig(passwords) });
    [mongo, redis] = await Promise.all([mongoUrl(), redisUrl()]);
    await newPod('registry');
    await newPod('adapter-local');
    await newPod('adapter-local');
    await newPod('dispatcher');
    await newPod('dispatcher');
  });

  afterAll(async () => {
    for (const c of endpoints.values()) c.close();
    await Promise.all(Object.values(pods).flat().map((p) => p.proc.kill('SIGTERM')));
    await nats?.stop();
  });

  it('replaces both dispatchers and both adapter-local replicas while calls run, and no call fails', async () => {
    const metadata = keyMetadata(apiKey);
    const first = [...endpoints.values()][0]!;
    await waitFor(async () => (await first.listProviders({}, { metadata })).providers.some((p) => p.provider === 'local' && p.healthy && p.replicas >= 2), { timeoutMs: 60_000, intervalMs: 250, message: 'both adapter-local replicas to be seen' });
    const outcome = { ok: 0, failed: 0, errors: [] as string[] };
    let stop = false;
    let turn = 0;
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const ready = [...endpoints.values()];
        const agent = ready[turn++ % ready.length]!;
        try {
          const res = await agent.runTool({ provider: 'local', name: 'math_calculate', arguments: { expression: `${w} * ${i}` }, caller: `rolling-${w}` }, { metadata, deadlineMs: 30_000 });
          if (res.status === RunStatus.RUN_STATUS_OK) outcome.ok++;
          else {
            outcome.failed++;
            outcome.errors.push(JSON.stringify(res.error));
          }
        } catch (err) {
          outcome.failed++;
          outcome.errors.push((err as Error).message);
        }
      }
    };
    const load = Promise.all(Array.from({ length: 6 }, (_, w) => worker(w)));
    await waitFor(() => outcome.ok >= 50, { timeoutMs: 60_000, message: 'the load to run' });
    await rollingRestart('dispatcher');
    const afterDispatchers = outcome.ok;
    await rollingRestart('adapter-local');
    await waitFor(() => outcome.ok >= afterDispatchers + 50, { timeoutMs: 60_000, message: 'calls to go on after the restarts' });
    stop = true;
    await load;
    console.log(`rolling-restart report: ${JSON.stringify({ ok: outcome.ok, failed: outcome.failed, replaced: { dispatcher: 2, 'adapter-local': 2 }, okDuringAdapterRestart: outcome.ok - afterDispatchers })}`);
    expect({ failed: outcome.failed, errors: outcome.errors.slice(0, 5) }).toEqual({ failed: 0, errors: [] });
    expect(outcome.ok).toBeGreaterThan(100);
  });
});
