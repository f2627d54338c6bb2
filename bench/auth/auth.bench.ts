/**
 * Cost of authentication per RunTool: the same dispatcher behind three gRPC servers — no auth
 * (local mode), API keys, JWT bearer tokens (ES256, JWKS file) — and a fourth with API keys plus a
 * restricted grants view, measured in the same run, interleaved round by round so machine load
 * hits every variant alike. A script, not a timed test; run it on built JS:
 *
 *   node scripts/build.mjs bench/auth auth.bench.ts && node dist/bench/auth/auth.bench.js
 *
 * (or `npx tsx bench/auth/auth.bench.ts`). Prints a table and writes bench/results/auth.json.
 * CPU per call is the headline (wall-clock throughput on a shared machine is noisy); everything
 * (client, dispatcher, adapter) runs in this one process, so it is the whole cost of a call.
 * The adapter is a no-op on the in-process bus, so the ratio is an upper bound: with NATS between
 * dispatcher and adapter, the base cost per call is larger and auth's share smaller.
 */
import { credentials, Metadata } from '@grpc/grpc-js';
import { serveAdapter, staticCatalog, textResult } from '@toolhub/adapter-sdk';
import { Authenticator, Grants, hashApiKey } from '@toolhub/auth';
import { InProcessBus } from '@toolhub/bus';
import { ToolHubClient } from '@toolhub/contracts';
import { Dispatcher, type RunningGrpcServer, startGrpcServer } from '@toolhub/dispatcher-core';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const OUT = resolve(process.env['BENCH_OUT'] ?? 'bench/results/auth.json');
const ROUND_MS = Number(process.env['BENCH_ROUND_MS'] ?? 2000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 4);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 16);

interface Variant {
  name: string;
  server: RunningGrpcServer;
  metadata: Metadata;
  client?: ToolHubClient;
  latencies: number[];
  calls: number;
  ms: number;
  /** CPU time (user + system) of this process during the variant's rounds, µs: robust to a busy machine. */
  cpuUs: number;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

function runOnce(v: Variant): Promise<void> {
  return new Promise((resolveCall, reject) =>
    v.client!.runTool(
      { provider: 'bench', name: 'noop', arguments: { text: 'x' }, timeoutMs: 5000, idempotencyKey: '', expectedVersion: '', caller: 'bench', searchId: '' },
      v.metadata,
      { deadline: Date.now() + 10_000 },
      (err) => (err ? reject(err) : resolveCall()),
    ),
  );
}

async function measure(v: Variant, ms: number, record: boolean): Promise<void> {
  const end = Date.now() + ms;
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  const worker = async () => {
    while (Date.now() < end) {
      const t0 = performance.now();
      await runOnce(v);
      if (record) {
        v.latencies.push(performance.now() - t0);
        v.calls++;
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  if (record) {
    v.ms += performance.now() - started;
    const cpu = process.cpuUsage(cpu0);
    v.cpuUs += cpu.user + cpu.system;
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'toolhub-auth-bench-'));
  const apiKey = 'bench-key-0123456789abcdef0123456789';
  const agentKey = 'bench-agent-key-0123456789abcdef0123';
  writeFileSync(
    join(dir, 'keys.json'),
    JSON.stringify({ keys: [{ name: 'bench', sha256: hashApiKey(apiKey), roles: ['operator'] }, { name: 'bench-agent', sha256: hashApiKey(agentKey), roles: ['agent'] }] }),
  );
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  writeFileSync(join(dir, 'jwks.json'), JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' }] }));
  const token = await new SignJWT({ roles: ['operator'] }).setProtectedHeader({ alg: 'ES256', kid: 'k' }).setIssuer('https://idp.bench').setSubject('bench').setAudience('toolhub').setIssuedAt().setExpirationTime('2h').sign(privateKey);

  const bus = new InProcessBus();
  const adapter = await serveAdapter(bus, {
    provider: 'bench',
    ...staticCatalog('bench', [{ name: 'noop', path: 'bench', description: 'Does nothing.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, run: async () => textResult('ok') }]),
  });
  // Operators see everything (no filtering); the agent role has a restricted view (every tool checked).
  const grants = new Grants({ roles: { operator: { allow: ['*'] }, agent: { allow: ['bench:**', 'local:*'], deny: ['bench:secret/**'] } } });
  // One dispatcher (one cache, one backend) behind every server.
  const dispatcher = await Dispatcher.create(bus, { warmCoreTools: false, eventDurability: 'memory' }, { grants });
  const keys = Authenticator.create({ apiKeysPath: join(dir, 'keys.json') });
  const jwt = Authenticator.create({ jwt: { issuer: 'https://idp.bench', audience: 'toolhub', jwks: join(dir, 'jwks.json') } });
  const md = (pairs: Record<string, string>) => {
    const m = new Metadata();
    for (const [k, v] of Object.entries(pairs)) m.set(k, v);
    return m;
  };
  const variants: Variant[] = [
    { name: 'no auth (local mode)', server: await startGrpcServer(dispatcher, { port: 0 }), metadata: md({}), latencies: [], calls: 0, ms: 0, cpuUs: 0 },
    { name: 'API key', server: await startGrpcServer(dispatcher, { port: 0, authenticator: keys }), metadata: md({ authorization: `Bearer ${apiKey}` }), latencies: [], calls: 0, ms: 0, cpuUs: 0 },
    { name: 'JWT (ES256)', server: await startGrpcServer(dispatcher, { port: 0, authenticator: jwt }), metadata: md({ authorization: `Bearer ${token}` }), latencies: [], calls: 0, ms: 0, cpuUs: 0 },
    { name: 'API key, restricted grants', server: await startGrpcServer(dispatcher, { port: 0, authenticator: keys }), metadata: md({ authorization: `Bearer ${agentKey}` }), latencies: [], calls: 0, ms: 0, cpuUs: 0 },
  ];
  for (const v of variants) v.client = new ToolHubClient(v.server.address, credentials.createInsecure());
  for (const v of variants) await measure(v, 500, false); // warm-up: connections, caches, JIT
  for (let r = 0; r < ROUNDS; r++) for (const v of r % 2 ? [...variants].reverse() : variants) await measure(v, ROUND_MS, true);

  const base = variants[0]!;
  const rate = (v: Variant) => (v.calls / v.ms) * 1000;
  const cpuPerCall = (v: Variant) => v.cpuUs / v.calls;
  const rows = variants.map((v) => ({
    variant: v.name,
    calls: v.calls,
    callsPerSecond: Math.round(rate(v)),
    p50Ms: Number(pct(v.latencies, 50).toFixed(3)),
    p99Ms: Number(pct(v.latencies, 99).toFixed(3)),
    cpuUsPerCall: Math.round(cpuPerCall(v)),
    cpuRatio: Number((cpuPerCall(v) / cpuPerCall(base)).toFixed(3)),
    throughputRatio: Number((rate(base) / rate(v)).toFixed(3)),
  }));
  console.table(rows);
  mkdirSync(resolve(OUT, '..'), { recursive: true });
  writeFileSync(OUT, JSON.stringify({ date: new Date().toISOString(), cpus: cpus().length, cpu: cpus()[0]?.model, concurrency: CONCURRENCY, rounds: ROUNDS, roundMs: ROUND_MS, rows }, null, 2));
  console.log(`cpuRatio = CPU per call (client, dispatcher, adapter: all this process) ÷ the same without auth; throughputRatio = calls/s without auth ÷ with it. 1.10 = 10% more. Written to ${OUT}`);

  for (const v of variants) {
    v.client!.close();
    await v.server.close(100);
  }
  keys.close();
  jwt.close();
  await dispatcher.close();
  await adapter.close();
  await bus.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
