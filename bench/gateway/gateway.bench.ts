/**
 * Gateway benchmark (issue 12, item 4): the same MCP `echo` call (a 100-byte message) through
 * ToolHub in one-process mode, ToolHub in multi-process mode, the npm peers mcp-proxy and mcp-hub,
 * and directly against the MCP server (the floor), at concurrency 1/16/64. Every target wraps the
 * same @modelcontextprotocol/server-everything (the copy in node_modules) over stdio.
 *
 *   node scripts/build-apps.mjs toolhub dispatcher adapter-mcp
 *   node scripts/build.mjs bench/gateway gateway.bench.ts load-grpc.ts load-mcp.ts
 *   node dist/bench/gateway/gateway.bench.js
 *
 * One load generator per protocol, each its own process (forked from this one): load-grpc.js
 * (ToolHubClient over gRPC) and load-mcp.js (an @modelcontextprotocol/sdk client over Streamable
 * HTTP, HTTP+SSE or stdio). CPU time of every process involved is read from /proc around each
 * measurement. Prints a Markdown table and the verdicts, writes bench/results/gateway.json.
 *
 * Environment: BENCH_MEASURE_MS (10000), BENCH_WARM_MS (2000), BENCH_CONCURRENCY (1,16,64),
 * BENCH_TARGETS (toolhub-1p,toolhub-mp,toolhub-mcp-1p,toolhub-mcp-mp,toolhub-sse-1p,toolhub-sse-mp,
 * mcp-proxy,mcp-hub; the floor always runs), NATS_URL (else a
 * private nats-server), BENCH_PEERS_DIR (where the peers are installed), BENCH_APPS_DIR (the app
 * bundles; default dist/apps) with BENCH_APPS_SOURCE (what they were built from, recorded), BENCH_OUT,
 * BENCH_PROFILE=<dir> (V8 CPU profiles of the ToolHub processes, written when they stop).
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';

import { freePort, isAlive, repoRoot, scratchDir, spawnProcess, type SpawnedProcess, startNatsServer, type NatsServerHandle } from '@toolhub/test-harness';

import { ensurePeers, PEER_VERSIONS } from './peers';
import { type FromGenerator, MESSAGE, type RunStats, type ToGenerator } from './protocol';

const ROOT = repoRoot(__dirname);
const OUT = resolve(ROOT, process.env['BENCH_OUT'] ?? 'bench/results/gateway.json');
const MEASURE_MS = Number(process.env['BENCH_MEASURE_MS'] ?? 10_000);
const WARM_MS = Number(process.env['BENCH_WARM_MS'] ?? 2_000);
const CONCURRENCY = (process.env['BENCH_CONCURRENCY'] ?? '1,16,64').split(',').map(Number);
const ALL_TARGETS = ['toolhub-1p', 'toolhub-mp', 'toolhub-mcp-1p', 'toolhub-mcp-mp', 'toolhub-sse-1p', 'toolhub-sse-mp', 'mcp-proxy', 'mcp-hub'] as const;
/** The ToolHub rows the verdicts are given for. */
const TOOLHUB_MODES: TargetId[] = ['toolhub-1p', 'toolhub-mp', 'toolhub-mcp-1p', 'toolhub-mcp-mp', 'toolhub-sse-1p', 'toolhub-sse-mp'];
type TargetId = 'floor' | (typeof ALL_TARGETS)[number];
const TARGETS: TargetId[] = ['floor', ...((process.env['BENCH_TARGETS']?.split(',').filter(Boolean) ?? [...ALL_TARGETS]) as TargetId[]).filter((t) => t !== 'floor')];
const SERVER_JS = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const MCP_CONFIG = join(ROOT, 'libs/mcp-adapter/config/default.yaml');
/** Where the app bundles are: `dist/apps` of the repo, or BENCH_APPS_DIR (bundles built elsewhere, e.g. from a clean export of a commit). */
const APPS_DIR = resolve(ROOT, process.env['BENCH_APPS_DIR'] ?? 'dist/apps');
const APP = (app: string) => join(APPS_DIR, app, 'main.js');
const PROFILE_ARGS = process.env['BENCH_PROFILE'] ? ['--cpu-prof', `--cpu-prof-dir=${resolve(process.env['BENCH_PROFILE'])}`] : [];

const log = (line: string) => process.stderr.write(`${line}\n`);

// ---------------------------------------------------------------------------------------------
// CPU time per process, from /proc (Linux).

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU time of a process so far, in µs; NaN when it cannot be read. */
function cpuUs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime: fields 14 and 15 of the whole line, in clock ticks.
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLK_TCK;
  } catch {
    return NaN;
  }
}

/** Every descendant of `pid` with its command line (from one `ps`). */
function descendants(pid: number): { pid: number; args: string }[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const out: { pid: number; args: string }[] = [];
  const walk = (p: number) => {
    for (const r of rows.filter((x) => x.ppid === p)) {
      out.push({ pid: r.pid, args: r.args });
      walk(r.pid);
    }
  };
  walk(pid);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Load generators: forked processes speaking protocol.ts over IPC.

interface Generator {
  child: ChildProcess;
  next(type: FromGenerator['type'], timeoutMs: number): Promise<FromGenerator>;
  send(msg: ToGenerator): void;
  stop(): Promise<void>;
}

function startGenerator(script: string, env: Record<string, string>): Generator {
  const file = join(__dirname, script);
  if (!existsSync(file)) throw new Error(`${file} is missing: build the bench first (node scripts/build.mjs bench/gateway gateway.bench.ts load-grpc.ts load-mcp.ts)`);
  const child = fork(file, [], { cwd: ROOT, env: { ...process.env, ...env }, execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const inbox: FromGenerator[] = [];
  let waiter: (() => void) | undefined;
  let exited: string | undefined;
  child.on('message', (m: FromGenerator) => {
    inbox.push(m);
    waiter?.();
  });
  // A send racing the child's exit (on Ctrl-C) must not crash the bench: the exit is reported below.
  child.on('error', (err) => log(`load generator ${script}: ${err.message}`));
  child.on('exit', (code, signal) => {
    exited = `load generator ${script} exited (code ${code}, signal ${signal})`;
    waiter?.();
  });
  return {
    child,
    async next(type, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = inbox.shift();
        if (m?.type === 'error') throw new Error(`${script}: ${m.message}`);
        if (m?.type === type) return m;
        if (m) continue;
        if (exited) throw new Error(exited);
        if (Date.now() > deadline) throw new Error(`${script}: no '${type}' within ${timeoutMs} ms`);
        await new Promise<void>((r) => {
          const t = setTimeout(r, Math.max(1, deadline - Date.now()));
          waiter = () => (clearTimeout(t), r());
        });
        waiter = undefined;
      }
    },
    send(msg) {
      if (!child.connected) throw new Error(exited ?? `load generator ${script} is not connected`);
      child.send(msg);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      try {
        child.send({ cmd: 'exit' } satisfies ToGenerator);
      } catch {
        child.kill('SIGTERM');
      }
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(t);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Targets.

interface Target {
  id: TargetId;
  label: string;
  /** Which processes ran, and how the load generator calls. */
  description: string;
  generator: Generator;
  /** Process roles whose CPU is watched, in table order: 'load generator', gateway roles, 'nats', 'mcp server'. */
  processes: Map<string, number>;
  gatewayRoles: string[];
  tool: string;
}

const LABELS: Record<TargetId, string> = {
  floor: 'floor: MCP server direct (stdio)',
  'toolhub-1p': 'ToolHub one-process (gRPC)',
  'toolhub-mp': 'ToolHub multi-process (gRPC)',
  'toolhub-mcp-1p': 'ToolHub one-process (MCP door)',
  'toolhub-mcp-mp': 'ToolHub multi-process (MCP door)',
  'toolhub-sse-1p': 'ToolHub one-process (MCP door, HTTP+SSE)',
  'toolhub-sse-mp': 'ToolHub multi-process (MCP door, HTTP+SSE)',
  'mcp-proxy': `mcp-proxy ${PEER_VERSIONS['mcp-proxy']} (Streamable HTTP)`,
  'mcp-hub': `mcp-hub ${PEER_VERSIONS['mcp-hub']} (HTTP+SSE /mcp)`,
};

/** Everything started, stopped in reverse order at the end, on errors and on signals too. */
const cleanups: (() => Promise<void>)[] = [];
/** MCP server pids seen: killed at the end if their gateway left them behind. */
const serverPids = new Set<number>();

function mcpServerPid(gatewayPid: number): number | undefined {
  return descendants(gatewayPid).find((d) => d.args.includes('server-everything'))?.pid;
}

async function spawnApp(name: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<SpawnedProcess> {
  const proc = await spawnProcess(process.execPath, args, { cwd: ROOT, env, readyPattern: ready, timeoutMs: 120_000 });
  cleanups.push(async () => {
    await proc.kill('SIGTERM');
  });
  log(`  started ${name} (pid ${proc.pid})`);
  return proc;
}

async function withGenerator(
  id: TargetId,
  description: string,
  script: 'load-grpc.js' | 'load-mcp.js',
  env: Record<string, string>,
  gateway: [string, number][],
  extra: [string, number][] = [],
): Promise<Target> {
  const generator = startGenerator(script, env);
  cleanups.push(() => generator.stop());
  const ready = (await generator.next('ready', 150_000)) as Extract<FromGenerator, { type: 'ready' }>;
  const serverPid = ready.serverPid ?? gateway.map(([, pid]) => mcpServerPid(pid)).find((p) => p !== undefined);
  if (serverPid) serverPids.add(serverPid);
  const processes = new Map<string, number>([['load generator', generator.child.pid!], ...gateway, ...extra]);
  if (serverPid) processes.set('mcp server', serverPid);
  log(`  ${LABELS[id]}: ${ready.detail}${serverPid ? `; MCP server pid ${serverPid}` : '; MCP server pid not found'}`);
  return { id, label: LABELS[id], description: `${description}; ${ready.detail}`, generator, processes, gatewayRoles: gateway.map(([r]) => r), tool: ready.tool };
}

async function startFloor(): Promise<Target> {
  return withGenerator(
    'floor',
    'load generator (MCP SDK client) → server-everything, its own child over stdio',
    'load-mcp.js',
    { GEN_TRANSPORT: 'stdio', GEN_SERVER_JS: SERVER_JS, GEN_TOOL: 'echo' },
    [],
  );
}

function requireBuilt(app: string): string {
  const file = APP(app);
  if (!existsSync(file)) throw new Error(`${file} is missing: node scripts/build-apps.mjs toolhub dispatcher adapter-mcp`);
  return file;
}

async function startToolhubOneProcess(): Promise<Target> {
  const port = await freePort();
  const app = await spawnApp(
    'toolhub (one process)',
    [...PROFILE_ARGS, requireBuilt('toolhub')],
    {
      TOOLHUB_GRPC_PORT: String(port), TOOLHUB_MCP_PORT: '0', TOOLHUB_CONSOLE_PORT: '0',
      TOOLHUB_ADMIN_PORT: '0',
      TOOLHUB_DATA_DIR: scratchDir('gateway-toolhub'),
      TOOLHUB_MCP_CONFIG: MCP_CONFIG,
      TOOLHUB_CLOUD: 'false',
      LOG_LEVEL: 'warn',
    },
    /ToolHub is running/,
  );
  return withGenerator(
    'toolhub-1p',
    'load generator (ToolHubClient) → toolhub (dist/apps/toolhub: dispatcher, registry on the embedded store, adapter-local, adapter-mcp; in-process bus; cloud off) → server-everything over stdio',
    'load-grpc.js',
    { GEN_ADDRESS: `127.0.0.1:${port}` },
    [['toolhub', app.pid]],
  );
}

async function startToolhubMultiProcess(): Promise<Target> {
  let nats: NatsServerHandle | undefined;
  if (!process.env['NATS_URL']) {
    nats = await startNatsServer();
    cleanups.push(() => nats!.dispose());
    log(`  started nats-server (pid ${nats.pid})`);
  }
  const natsUrl = process.env['NATS_URL'] ?? nats!.url;
  const adapter = await spawnApp('adapter-mcp', [...PROFILE_ARGS, requireBuilt('adapter-mcp')], { NATS_URL: natsUrl, TOOLHUB_MCP_CONFIG: MCP_CONFIG, LOG_LEVEL: 'info' }, /adapter-mcp ready/);
  const port = await freePort();
  const dispatcher = await spawnApp(
    'dispatcher',
    [...PROFILE_ARGS, requireBuilt('dispatcher')],
    { NATS_URL: natsUrl, TOOLHUB_GRPC_PORT: String(port), TOOLHUB_MCP_PORT: '0', TOOLHUB_OUTBOX_DIR: scratchDir('gateway-outbox'), LOG_LEVEL: 'info' },
    /dispatcher listening/,
  );
  return withGenerator(
    'toolhub-mp',
    `load generator (ToolHubClient) → dispatcher (dist/apps/dispatcher) → NATS (${nats ? 'private nats-server' : 'NATS_URL'}) → adapter-mcp (dist/apps/adapter-mcp) → server-everything over stdio; ` +
      'registry not run (apps/registry needs MongoDB: it has no embedded store), so no tool.called statistics are ingested',
    'load-grpc.js',
    { GEN_ADDRESS: `127.0.0.1:${port}` },
    [
      ['dispatcher', dispatcher.pid],
      ['adapter-mcp', adapter.pid],
    ],
    nats ? [['nats', nats.pid]] : [],
  );
}

/** The echo tool as the MCP door exposes it once looked up (default view: tool_info adds it to tools/list). */
const DOOR_TOOL = { id: 'mcp:everything_echo', exposed: 'mcp__everything_echo' };

/** How the load generator reaches the door: Streamable HTTP at /mcp, or HTTP+SSE (2024-11-05) at /sse. */
function doorGenerator(transport: 'http' | 'sse', mcpPort: number): Record<string, string> {
  const path = transport === 'http' ? '/mcp' : '/sse';
  return { GEN_TRANSPORT: transport, GEN_URL: `http://127.0.0.1:${mcpPort}${path}`, GEN_TOOL: DOOR_TOOL.exposed, GEN_LOAD: DOOR_TOOL.id };
}

const TRANSPORT_NAME = { http: 'Streamable HTTP', sse: 'HTTP+SSE: GET /sse stream + POST /messages' } as const;

async function startToolhubMcpOneProcess(transport: 'http' | 'sse'): Promise<Target> {
  const mcpPort = await freePort();
  const app = await spawnApp(
    'toolhub (one process, MCP door)',
    [...PROFILE_ARGS, requireBuilt('toolhub')],
    {
      TOOLHUB_GRPC_PORT: '0',
      TOOLHUB_ADMIN_PORT: '0',
      TOOLHUB_MCP_PORT: String(mcpPort),
      TOOLHUB_CONSOLE_PORT: '0',
      TOOLHUB_MCP_JSON_RESPONSE: process.env['BENCH_MCP_JSON'] ?? 'false',
      TOOLHUB_DATA_DIR: scratchDir('gateway-toolhub-mcp'),
      TOOLHUB_MCP_CONFIG: MCP_CONFIG,
      TOOLHUB_CLOUD: 'false',
      LOG_LEVEL: 'warn',
    },
    /ToolHub is running/,
  );
  return withGenerator(
    transport === 'http' ? 'toolhub-mcp-1p' : 'toolhub-sse-1p',
    `load generator (MCP SDK client, ${TRANSPORT_NAME[transport]}) → toolhub MCP door (dist/apps/toolhub, default view; the echo tool loaded with tool_info, then called typed) → server-everything over stdio`,
    'load-mcp.js',
    doorGenerator(transport, mcpPort),
    [['toolhub', app.pid]],
  );
}

async function startToolhubMcpMultiProcess(transport: 'http' | 'sse'): Promise<Target> {
  let nats: NatsServerHandle | undefined;
  if (!process.env['NATS_URL']) {
    nats = await startNatsServer();
    cleanups.push(() => nats!.dispose());
    log(`  started nats-server (pid ${nats.pid})`);
  }
  const natsUrl = process.env['NATS_URL'] ?? nats!.url;
  const adapter = await spawnApp('adapter-mcp (for the MCP door)', [...PROFILE_ARGS, requireBuilt('adapter-mcp')], { NATS_URL: natsUrl, TOOLHUB_MCP_CONFIG: MCP_CONFIG, LOG_LEVEL: 'info' }, /adapter-mcp ready/);
  const mcpPort = await freePort();
  const dispatcher = await spawnApp(
    'dispatcher (MCP door)',
    [...PROFILE_ARGS, requireBuilt('dispatcher')],
    { NATS_URL: natsUrl, TOOLHUB_GRPC_PORT: '0', TOOLHUB_MCP_PORT: String(mcpPort), TOOLHUB_CONSOLE_PORT: '0', TOOLHUB_OUTBOX_DIR: scratchDir('gateway-outbox-mcp'), LOG_LEVEL: 'info' },
    /dispatcher listening/,
  );
  return withGenerator(
    transport === 'http' ? 'toolhub-mcp-mp' : 'toolhub-sse-mp',
    `load generator (MCP SDK client, ${TRANSPORT_NAME[transport]}) → dispatcher MCP door (dist/apps/dispatcher) → NATS (${nats ? 'private nats-server' : 'NATS_URL'}) → adapter-mcp → server-everything over stdio; registry not run (as toolhub-mp)`,
    'load-mcp.js',
    doorGenerator(transport, mcpPort),
    [
      ['dispatcher', dispatcher.pid],
      ['adapter-mcp', adapter.pid],
    ],
    nats ? [['nats', nats.pid]] : [],
  );
}

async function startMcpProxy(entry: string): Promise<Target> {
  const port = await freePort();
  // Flags from `mcp-proxy --help` (6.7.19): --port, --host (default "::"), then `--` and the stdio command.
  const proxy = await spawnApp('mcp-proxy', [entry, '--port', String(port), '--host', '127.0.0.1', '--', process.execPath, SERVER_JS, 'stdio'], {}, /starting server on port/);
  return withGenerator(
    'mcp-proxy',
    `load generator (MCP SDK client) → mcp-proxy ${PEER_VERSIONS['mcp-proxy']} (defaults: stateful sessions, event store on) → server-everything over stdio`,
    'load-mcp.js',
    { GEN_TRANSPORT: 'http', GEN_URL: `http://127.0.0.1:${port}/mcp`, GEN_TOOL: 'echo' },
    [['mcp-proxy', proxy.pid]],
  );
}

async function startMcpHub(entry: string): Promise<Target> {
  const port = await freePort();
  const home = scratchDir('gateway-mcp-hub');
  const config = join(home, 'mcp-servers.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [SERVER_JS, 'stdio'] } } }, null, 2));
  // mcp-hub keeps logs, a workspace cache and a marketplace cache under $HOME / XDG folders: a
  // scratch home keeps them out of the user's. A fresh marketplace cache stops it from fetching its
  // public catalog at start (this machine reaches no such host, and the bench must not try).
  const dataHome = join(home, 'data');
  mkdirSync(join(dataHome, 'mcp-hub', 'cache'), { recursive: true });
  writeFileSync(
    join(dataHome, 'mcp-hub', 'cache', 'registry.json'),
    JSON.stringify({
      registry: { version: 'bench', generatedAt: Date.now(), totalServers: 1, servers: [{ id: 'bench', name: 'bench', description: 'placeholder', tags: [] }] },
      lastFetchedAt: Date.now(),
      serverDocumentation: {},
    }),
  );
  // Flags from `mcp-hub --help` (4.2.1): --port and --config are required. It has no host flag.
  const hub = await spawnApp(
    'mcp-hub',
    [entry, '--port', String(port), '--config', config],
    { HOME: home, XDG_DATA_HOME: dataHome, XDG_STATE_HOME: join(home, 'state'), XDG_CONFIG_HOME: join(home, 'config') },
    /HTTP_SERVER_STARTED|Hub endpoint ready/,
  );
  return withGenerator(
    'mcp-hub',
    `load generator (MCP SDK client) → mcp-hub ${PEER_VERSIONS['mcp-hub']} unified MCP endpoint (GET /mcp SSE stream + POST /messages; tool everything__echo) → server-everything over stdio`,
    'load-mcp.js',
    { GEN_TRANSPORT: 'sse', GEN_URL: `http://127.0.0.1:${port}/mcp`, GEN_TOOL: 'everything__echo' },
    [['mcp-hub', hub.pid]],
  );
}

// ---------------------------------------------------------------------------------------------
// Measuring and reporting.

interface Row {
  target: TargetId;
  label: string;
  concurrency: number;
  calls: number;
  errors: number;
  firstError?: string;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  meanMs: number;
  callsPerSecond: number;
  /** CPU time (user + system) per successful call of each process, in µs. */
  cpuUsPerCall: Record<string, number>;
  /** The gateway's processes together (dispatcher + adapter-mcp in multi-process mode). */
  gatewayCpuUsPerCall: number;
  totalCpuUsPerCall: number;
}

const round = (n: number): number => (!Number.isFinite(n) ? n : n >= 100 ? Math.round(n) : n >= 1 ? Math.round(n * 100) / 100 : Number(n.toPrecision(3)));

async function measure(t: Target, concurrency: number): Promise<Row> {
  t.generator.send({ cmd: 'run', concurrency, warmMs: WARM_MS, measureMs: MEASURE_MS });
  await t.generator.next('measuring', WARM_MS + 60_000);
  const before = new Map([...t.processes].map(([role, pid]) => [role, cpuUs(pid)]));
  const { stats } = (await t.generator.next('result', MEASURE_MS + 60_000)) as { stats: RunStats };
  const after = new Map([...t.processes].map(([role, pid]) => [role, cpuUs(pid)]));
  const calls = Math.max(1, stats.calls);
  const cpuUsPerCall: Record<string, number> = {};
  for (const [role, b] of before) {
    const used = after.get(role)! - b;
    if (Number.isFinite(used)) cpuUsPerCall[role] = Math.round(used / calls);
  }
  const gatewayCpuUsPerCall = t.gatewayRoles.reduce((s, r) => s + (cpuUsPerCall[r] ?? 0), 0);
  const row: Row = {
    target: t.id,
    label: t.label,
    concurrency,
    calls: stats.calls,
    errors: stats.errors,
    ...(stats.firstError ? { firstError: stats.firstError } : {}),
    p50Ms: round(stats.p50Ms),
    p90Ms: round(stats.p90Ms),
    p99Ms: round(stats.p99Ms),
    meanMs: round(stats.meanMs),
    callsPerSecond: Math.round((stats.calls / stats.elapsedMs) * 1000),
    cpuUsPerCall,
    gatewayCpuUsPerCall,
    totalCpuUsPerCall: Object.values(cpuUsPerCall).reduce((a, b) => a + b, 0),
  };
  log(
    `  ${t.label} @${concurrency}: p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms, ${row.callsPerSecond}/s, ${row.errors} errors, CPU µs/call ${JSON.stringify(cpuUsPerCall)}` +
      (stats.firstError ? ` (first error: ${stats.firstError})` : ''),
  );
  return row;
}

function markdown(head: string[], body: string[][], leftCols = 1): string {
  const widths = head.map((h, c) => Math.max(h.length, ...body.map((b) => b[c]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, c) => (c < leftCols ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(' | ')} |`;
  return [line(head), `|${widths.map((w, c) => (c < leftCols ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...body.map(line)].join('\n');
}

function table(rows: Row[], targets: Target[]): string {
  const num = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? '–' : n.toLocaleString('en-US'));
  const gateway = (r: Row) => {
    const t = targets.find((x) => x.id === r.target)!;
    if (t.gatewayRoles.length === 0) return '–';
    const parts = t.gatewayRoles.map((g) => num(r.cpuUsPerCall[g]));
    return parts.length > 1 ? `${num(r.gatewayCpuUsPerCall)} (${parts.join(' + ')})` : parts[0]!;
  };
  return markdown(
    ['target', 'conc.', 'calls', 'errors', 'p50 ms', 'p99 ms', 'calls/s', 'CPU µs/call: load gen', 'gateway', 'nats', 'MCP server', 'total'],
    rows.map((r) => [
      r.label,
      String(r.concurrency),
      num(r.calls),
      num(r.errors),
      String(r.p50Ms),
      String(r.p99Ms),
      num(r.callsPerSecond),
      num(r.cpuUsPerCall['load generator']),
      gateway(r),
      num(r.cpuUsPerCall['nats']),
      num(r.cpuUsPerCall['mcp server']),
      num(r.totalCpuUsPerCall),
    ]),
  );
}

interface Verdict {
  concurrency: number;
  mode: TargetId;
  p50Ms: number;
  callsPerSecond: number;
  peers: Record<string, { p50Ms: number; callsPerSecond: number }>;
  aheadInP50: boolean | null;
  aheadInCallsPerSecond: boolean | null;
}

function verdicts(rows: Row[]): Verdict[] {
  const out: Verdict[] = [];
  const peers: TargetId[] = ['mcp-proxy', 'mcp-hub'];
  for (const c of CONCURRENCY) {
    for (const mode of TOOLHUB_MODES) {
      const th = rows.find((r) => r.target === mode && r.concurrency === c);
      if (!th) continue;
      const ps = peers.map((p) => rows.find((r) => r.target === p && r.concurrency === c)).filter((r): r is Row => r !== undefined);
      const complete = ps.length === peers.length;
      out.push({
        concurrency: c,
        mode,
        p50Ms: th.p50Ms,
        callsPerSecond: th.callsPerSecond,
        peers: Object.fromEntries(ps.map((p) => [p.target, { p50Ms: p.p50Ms, callsPerSecond: p.callsPerSecond }])),
        aheadInP50: complete ? ps.every((p) => th.p50Ms < p.p50Ms) : null,
        aheadInCallsPerSecond: complete ? ps.every((p) => th.callsPerSecond > p.callsPerSecond) : null,
      });
    }
  }
  return out;
}

function verdictLines(vs: Verdict[]): string[] {
  const word = (b: boolean | null) => (b === null ? 'n/a (a peer did not run)' : b ? 'AHEAD ' : 'BEHIND');
  return vs.map((v) => {
    const peers = Object.entries(v.peers);
    return (
      `concurrency ${String(v.concurrency).padStart(2)}, ${LABELS[v.mode].padEnd(42)}: p50 ${word(v.aheadInP50)} (${v.p50Ms} ms vs ${peers.map(([n, p]) => `${n} ${p.p50Ms}`).join(', ')}); ` +
      `calls/s ${word(v.aheadInCallsPerSecond)} (${v.callsPerSecond} vs ${peers.map(([n, p]) => `${n} ${p.callsPerSecond}`).join(', ')})`
    );
  });
}

function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'apps', 'libs'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    if (process.env['BENCH_APPS_DIR']) return `${head} (work tree; the app bundles came from BENCH_APPS_DIR${process.env['BENCH_APPS_SOURCE'] ? `: ${process.env['BENCH_APPS_SOURCE']}` : ''})`;
    return dirty ? `${head} (apps/ or libs/ modified)` : head;
  } catch {
    return 'unknown';
  }
}

function bundleTimes(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const app of ['toolhub', 'dispatcher', 'adapter-mcp']) {
    try {
      out[app] = statSync(APP(app)).mtime.toISOString();
    } catch {
      // not built: reported by the target that needs it
    }
  }
  return out;
}

async function cleanup(): Promise<void> {
  while (cleanups.length > 0) {
    const step = cleanups.pop()!;
    await step().catch((err: unknown) => log(`cleanup: ${err instanceof Error ? err.message : String(err)}`));
  }
  // A gateway that did not stop its MCP server (or died first) must not leave it running.
  for (const pid of serverPids) {
    for (let waited = 0; isAlive(pid) && waited < 3000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    if (isAlive(pid)) {
      log(`cleanup: MCP server ${pid} outlived its gateway; killing it`);
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

async function main(): Promise<void> {
  const unknown = TARGETS.filter((t) => t !== 'floor' && !(ALL_TARGETS as readonly string[]).includes(t));
  if (unknown.length) throw new Error(`unknown BENCH_TARGETS ${unknown.join(', ')}; known: ${ALL_TARGETS.join(', ')}`);
  if (!existsSync(SERVER_JS)) throw new Error(`${SERVER_JS} is missing: npm install`);
  const loadBefore = loadavg();
  const started = new Date();
  const peerEntries = TARGETS.some((t) => t === 'mcp-proxy' || t === 'mcp-hub') ? ensurePeers(log) : undefined;

  log(`starting ${TARGETS.join(', ')}`);
  const targets: Target[] = [];
  for (const id of TARGETS) {
    switch (id) {
      case 'floor':
        targets.push(await startFloor());
        break;
      case 'toolhub-1p':
        targets.push(await startToolhubOneProcess());
        break;
      case 'toolhub-mp':
        targets.push(await startToolhubMultiProcess());
        break;
      case 'toolhub-mcp-1p':
        targets.push(await startToolhubMcpOneProcess('http'));
        break;
      case 'toolhub-mcp-mp':
        targets.push(await startToolhubMcpMultiProcess('http'));
        break;
      case 'toolhub-sse-1p':
        targets.push(await startToolhubMcpOneProcess('sse'));
        break;
      case 'toolhub-sse-mp':
        targets.push(await startToolhubMcpMultiProcess('sse'));
        break;
      case 'mcp-proxy':
        targets.push(await startMcpProxy(peerEntries!['mcp-proxy']));
        break;
      case 'mcp-hub':
        targets.push(await startMcpHub(peerEntries!['mcp-hub']));
        break;
    }
  }

  // Interleaved: every target at one concurrency, then the next, so a change in the machine's
  // load during the run touches every target alike.
  log(`measuring: concurrency ${CONCURRENCY.join('/')}, ${WARM_MS} ms warm-up then ${MEASURE_MS} ms each`);
  const rows: Row[] = [];
  for (const c of CONCURRENCY) {
    for (const t of targets) {
      if (stopping) throw new Error('interrupted');
      rows.push(await measure(t, c));
    }
  }
  const loadAfter = loadavg();

  const ordered = TARGETS.flatMap((id) => rows.filter((r) => r.target === id));
  const vs = verdicts(rows);
  process.stdout.write(`\n${table(ordered, targets)}\n\n`);
  process.stdout.write(
    'CPU µs/call: user + system CPU time of each process over the measurement, per successful call; gateway = the gateway process(es)' +
      (targets.some((t) => t.gatewayRoles.length > 1) ? ' (multi-process: dispatcher + adapter-mcp)' : '') +
      '; MCP server = the server-everything child.\n\n',
  );
  for (const line of verdictLines(vs)) process.stdout.write(`${line}\n`);
  process.stdout.write('\nProcesses per target:\n');
  for (const t of targets) process.stdout.write(`- ${t.label}: ${t.description}. Watched: ${[...t.processes].map(([r, p]) => `${r} ${p}`).join(', ')}\n`);

  const result = {
    benchmark: 'gateway',
    date: started.toISOString(),
    machine: {
      cpus: cpus().length,
      cpu: cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      loadAverageBefore: loadBefore.map((l) => Math.round(l * 100) / 100),
      loadAverageAfter: loadAfter.map((l) => Math.round(l * 100) / 100),
    },
    setup: {
      workload: `tools/call echo with a ${Buffer.byteLength(MESSAGE)}-byte message; closed loop, one client per load generator shared by all concurrent calls`,
      measureMs: MEASURE_MS,
      warmMs: WARM_MS,
      concurrency: CONCURRENCY,
      mcpServer: `${SERVER_JS} stdio`,
      mcpConfig: MCP_CONFIG,
      peers: PEER_VERSIONS,
      commit: gitCommit(),
      appsDir: APPS_DIR,
      bundles: bundleTimes(),
      targets: Object.fromEntries(targets.map((t) => [t.id, { label: t.label, tool: t.tool, processes: t.description, watched: Object.fromEntries(t.processes) }])),
    },
    rows: ordered,
    verdicts: vs,
  };
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`\nwritten to ${OUT} (load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(2)).join(' ')} after)\n`);
}

let stopping = false;
let cleaning: Promise<void> | undefined;
const cleanupOnce = (): Promise<void> => (cleaning ??= cleanup());
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping every process started`);
    void cleanupOnce().finally(() => process.exit(130));
  });
}

void main()
  .then(
    () => 0,
    (err: unknown) => {
      log(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return 1;
    },
  )
  .then(async (code) => {
    await cleanupOnce();
    process.exit(stopping ? 130 : code);
  });
