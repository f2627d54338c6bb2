/**
 * Process lifecycle for ToolHub apps: on SIGTERM/SIGINT stop taking work, finish in-flight calls,
 * drain the bus, exit. A second signal exits at once (an operator who presses Ctrl-C twice means it).
 */

/** pino-compatible subset, so this lib needs no logger of its own. */
export interface ShutdownLogger {
  info(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface ShutdownOptions {
  /** Hard limit on the whole shutdown before the process exits anyway. @default 15000 */
  timeoutMs?: number;
  signals?: NodeJS.Signals[];
  /** For tests: what "exit" means. @default process.exit */
  exit?: (code: number) => void;
}

/** A shutdown step: runs in the order given; a failing step is logged and the next one still runs. */
export interface ShutdownStep {
  name: string;
  run: () => Promise<void> | void;
}

/**
 * Installs signal handlers that run `steps` in order, then exit 0 (1 if a step failed or the
 * timeout hit). Returns a function that runs the same shutdown programmatically.
 */
export function onShutdown(log: ShutdownLogger, steps: ShutdownStep[], options: ShutdownOptions = {}): () => Promise<number> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let running: Promise<number> | undefined;

  const shutdown = (): Promise<number> => {
    running ??= (async () => {
      let code = 0;
      const timer = setTimeout(() => {
        log.error({ timeoutMs }, 'shutdown timed out; exiting');
        exit(1);
      }, timeoutMs);
      timer.unref();
      for (const step of steps) {
        try {
          await step.run();
        } catch (err) {
          code = 1;
          log.error({ err, step: step.name }, 'shutdown step failed');
        }
      }
      clearTimeout(timer);
      log.info({ code }, 'shutdown complete');
      return code;
    })();
    return running;
  };

  for (const signal of options.signals ?? (['SIGTERM', 'SIGINT'] as NodeJS.Signals[])) {
    process.on(signal, () => {
      if (running) {
        log.info({ signal }, 'second signal: exiting now');
        exit(130);
        return;
      }
      log.info({ signal }, 'shutting down: no new work, finishing in-flight calls');
      void shutdown().then(exit);
    });
  }
  return shutdown;
}
