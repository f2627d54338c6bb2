/**
 * What the orchestrator (gateway.bench.ts) and a load generator (load-grpc.ts, load-mcp.ts) say to
 * each other over the Node IPC channel of `fork`, and the closed-loop load both generators run.
 *
 * A generator connects, finds the echo tool, answers a probe call and sends `ready`. For each
 * `run` it runs the warm-up (discarded), sends `measuring`, runs the measurement and sends
 * `result`; the orchestrator reads every process's CPU time when `measuring` and `result` arrive.
 * A generator exits on `exit` or when the IPC channel closes (the orchestrator died).
 */

/** The message every call echoes: 100 bytes of ASCII. */
export const MESSAGE = 'toolhub gateway bench: the same message through every gateway '.padEnd(100, '#');

export type ToGenerator = { cmd: 'run'; concurrency: number; warmMs: number; measureMs: number } | { cmd: 'exit' };

export type FromGenerator =
  | { type: 'ready'; tool: string; detail: string; serverPid?: number }
  | { type: 'measuring' }
  | { type: 'result'; stats: RunStats }
  | { type: 'error'; message: string };

export interface RunStats {
  concurrency: number;
  /** Successful calls in the measurement (latencies are of these). */
  calls: number;
  errors: number;
  /** The first error's message, if any. */
  firstError?: string;
  elapsedMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  meanMs: number;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/**
 * Closed-loop load: `concurrency` workers each call `call` again as soon as the previous call
 * returns, for `ms` milliseconds. Latencies of successful calls in ms (when `record`).
 */
async function phase(concurrency: number, ms: number, record: boolean, call: () => Promise<void>) {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const started = process.hrtime.bigint();
  const end = Date.now() + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const t = process.hrtime.bigint();
        try {
          await call();
          if (record) latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
        } catch (err) {
          errors++;
          firstError ??= err instanceof Error ? err.message : String(err);
          // A gateway refusing at once must not turn this loop into a busy spin.
          await new Promise((r) => setTimeout(r, 5));
        }
      }
    }),
  );
  return { latencies, errors, firstError, elapsedMs: Number(process.hrtime.bigint() - started) / 1e6 };
}

function send(msg: FromGenerator): void {
  process.send?.(msg);
}

/**
 * Runs a generator: `connect` returns the call to repeat (already verified once) and a `close`;
 * then this serves the orchestrator's commands until `exit`.
 */
export function serveGenerator(connect: () => Promise<{ call: () => Promise<void>; close: () => Promise<void>; tool: string; detail: string; serverPid?: number }>): void {
  let close: (() => Promise<void>) | undefined;
  const quit = async (code: number): Promise<never> => {
    const timer = setTimeout(() => process.exit(code), 3000);
    timer.unref();
    await close?.().catch(() => undefined);
    process.exit(code);
  };
  process.on('disconnect', () => void quit(0));
  // Node's fetch (undici) leaves one abort listener per request on the transport's AbortSignal
  // until the response is garbage-collected, and warns once per request past 1,500 of them: the
  // MCP SDK's HTTP+SSE client sends every call as a fetch on one signal. Silence that one warning
  // (printing it per call would cost the generator CPU); print any other.
  process.removeAllListeners('warning');
  process.on('warning', (w) => {
    if (w.name !== 'MaxListenersExceededWarning') process.stderr.write(`${w.name}: ${w.message}\n`);
  });
  connect().then(
    (c) => {
      close = c.close;
      let busy = Promise.resolve();
      process.on('message', (msg: ToGenerator) => {
        busy = busy.then(async () => {
          if (msg.cmd === 'exit') return quit(0);
          await phase(msg.concurrency, msg.warmMs, false, c.call);
          send({ type: 'measuring' });
          const { latencies, errors, firstError, elapsedMs } = await phase(msg.concurrency, msg.measureMs, true, c.call);
          const sorted = Float64Array.from(latencies).sort();
          const mean = sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : NaN;
          send({
            type: 'result',
            stats: {
              concurrency: msg.concurrency,
              calls: sorted.length,
              errors,
              ...(firstError ? { firstError } : {}),
              elapsedMs,
              p50Ms: percentile(sorted, 50),
              p90Ms: percentile(sorted, 90),
              p99Ms: percentile(sorted, 99),
              meanMs: mean,
            },
          });
        });
      });
      send({ type: 'ready', tool: c.tool, detail: c.detail, ...(c.serverPid ? { serverPid: c.serverPid } : {}) });
    },
    (err: unknown) => {
      send({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      void quit(1);
    },
  );
}

/** Retries `fn` until it succeeds or `timeoutMs` passes (then rethrows its last error). */
export async function retry<T>(what: string, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${what}: gave up after ${timeoutMs} ms: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
