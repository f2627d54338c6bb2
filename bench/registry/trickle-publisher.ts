/**
 * The publisher of the registry bench's trickle mode, in a process of its own so that the
 * registry's process CPU is the registry's alone (the bench used to publish from its own process
 * and subtract a publisher's CPU measured apart, a figure noisier than what it measured).
 * Publishes the same events `registry.bench.ts` builds (`callEvents`, seeded) at a steady rate and
 * prints `{"publishSeconds": s, "cpuMs": ms}` on stdout.
 *
 *   node dist/bench/registry/trickle-publisher.js --nats <url> --tools 500 --count 30000 --rate 500 --run <id> [--events-per-message 1] [--claim-groups]
 */
import { NatsBus } from '@toolhub/bus';
import type { ToolCalled } from '@toolhub/contracts';

import { arg } from './args';
import { callEvents, loadCatalog } from './data';
import { publishEvents } from './event-messages';

/** Publishes `events` at `perSecond`, in 10 ms ticks (each tick waits for the stream's acks). */
async function publishPaced(bus: NatsBus, events: readonly ToolCalled[], perSecond: number, perMessage: number, claimGroups: boolean): Promise<void> {
  const perTick = Math.max(1, Math.round(perSecond / 100));
  const start = Date.now();
  for (let i = 0, tick = 0; i < events.length; i += perTick, tick++) {
    await publishEvents(bus, events.slice(i, i + perTick), perMessage, { claimGroups });
    const wait = start + (tick + 1) * 10 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
}

async function main(): Promise<void> {
  const url = arg('nats', '');
  const count = Number(arg('count', '0'));
  const rate = Number(arg('rate', '500'));
  const run = arg('run', '');
  if (!url || !run || !(count > 0) || !(rate > 0)) throw new Error('usage: trickle-publisher --nats <url> --tools <n> --count <n> --rate <per second> --run <id>');
  const events = callEvents(loadCatalog(Number(arg('tools', '500'))), count, run);
  const bus = await NatsBus.connect({ servers: url, name: 'bench-dispatcher' });
  const cpu0 = process.cpuUsage();
  const started = Date.now();
  await publishPaced(bus, events, rate, Number(arg('events-per-message', '1')), process.argv.includes('--claim-groups'));
  const publishSeconds = (Date.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await bus.close();
  process.stdout.write(`${JSON.stringify({ publishSeconds, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`trickle-publisher: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
