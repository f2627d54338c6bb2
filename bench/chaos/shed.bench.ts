/**
 * What a refused call costs the server, by where it is refused: a gRPC server with ToolHub's
 * guarded service definition in a child process, 2,000 RunTool calls at once on one connection,
 * repeated; the child's CPU per call for
 *   - served: answered by the handler (the floor of a call through grpc-js),
 *   - decoder: refused from the request decoder (GuardOptions.refuseEarly, before decoding),
 *   - stream: refused on the raw HTTP/2 stream before grpc-js (shedBeforeGrpc).
 * Modes alternate (A B C A B C …) so a busy machine weighs on all of them alike.
 *
 *   npm run bench -- chaos/shed.bench        (BENCH_ROUNDS, default 3; BENCH_OUT)
 */
import { credentials, Metadata, Server } from '@grpc/grpc-js';
import { RunToolRequest, RunToolResponse, ToolHubClient, ToolHubError, ToolHubService } from '@toolhub/contracts';
import { bindServer, guardedServiceDefinition, shedBeforeGrpc, unary } from '@toolhub/grpc-edge';
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';

type Mode = 'served' | 'decoder' | 'stream';
const MODES: Mode[] = ['served', 'decoder', 'stream'];
const BURST = 2000;
const BURSTS = 5;
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const OUT = resolve(process.env['BENCH_OUT'] ?? 'bench/results/shed.json');
const empty = new Uint8Array();

function serve(mode: Mode): void {
  const refusal = () => new ToolHubError('rate_limited', `The dispatcher is overloaded: retry after about ${Math.round(100 + 400 * Math.random())} ms.`, { retryAfterMs: 250, retryable: true });
  const server = new Server({ 'grpc.enable_channelz': 0 });
  server.addService(guardedServiceDefinition(ToolHubService, 1 << 20, { refuseEarly: (m) => (mode === 'decoder' && m === 'runTool' ? refusal() : undefined) }), {
    runTool: unary('toolhub.v1.ToolHub/RunTool', () => ({ ...RunToolResponse.decode(empty), attempts: 1 })),
  } as never);
  void bindServer(server, '127.0.0.1', 0).then((port) => {
    if (mode === 'stream' && shedBeforeGrpc(server, (p) => (p.endsWith('/RunTool') ? refusal() : undefined)) === 0) throw new Error('shedBeforeGrpc was not installed');
    process.send!({ port });
    process.on('message', () => {
      const u = process.cpuUsage();
      process.send!({ cpuMs: (u.user + u.system) / 1000 });
    });
  });
}

async function measure(mode: Mode): Promise<number> {
  const child: ChildProcess = fork(__filename, ['--serve', mode]);
  const next = () => new Promise<{ port?: number; cpuMs?: number }>((r) => child.once('message', r as never));
  const { port } = await next();
  const cpu = async () => (child.send('cpu'), (await next()).cpuMs!);
  const client = new ToolHubClient(`127.0.0.1:${port}`, credentials.createInsecure());
  const one = () => new Promise<void>((r) => client.runTool({ ...RunToolRequest.decode(empty), provider: 'local', name: 'time_now' }, new Metadata(), () => r()));
  for (let i = 0; i < 3; i++) await Promise.all(Array.from({ length: BURST }, one)); // warm-up: JIT, buffers
  const before = await cpu();
  for (let i = 0; i < BURSTS; i++) await Promise.all(Array.from({ length: BURST }, one));
  const used = (await cpu()) - before;
  client.close();
  child.kill();
  return (used * 1000) / (BURST * BURSTS);
}

async function main(): Promise<void> {
  const load = loadavg();
  const samples: Record<Mode, number[]> = { served: [], decoder: [], stream: [] };
  for (let r = 0; r < ROUNDS; r++) for (const mode of MODES) samples[mode].push(await measure(mode));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const rows = MODES.map((mode) => ({ mode, medianUs: Math.round(median(samples[mode]) * 10) / 10, samplesUs: samples[mode].map((x) => Math.round(x * 10) / 10) }));
  console.log(`server CPU per RunTool, ${BURSTS} bursts of ${BURST} calls on one connection, ${ROUNDS} rounds (load ${load.map((l) => l.toFixed(2)).join(' ')})\n`);
  console.log('| refused where | CPU µs per call (median) | samples |\n|---|--:|---|');
  for (const r of rows) console.log(`| ${r.mode} | ${r.medianUs} | ${r.samplesUs.join(', ')} |`);
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, JSON.stringify({ at: new Date().toISOString(), burst: BURST, bursts: BURSTS, rounds: ROUNDS, loadavg: load, rows }, null, 2));
  console.log(`\nwritten to ${OUT}`);
}

if (process.argv[2] === '--serve') serve(process.argv[3] as Mode);
else void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
