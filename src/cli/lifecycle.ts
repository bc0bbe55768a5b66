// Process lifecycle for the apiary commands: a clean shutdown on SIGTERM or
// SIGINT (exit 0 once everything stopped, 1 with the stack when stopping
// failed), and a bounded wait for start-up work.

/**
 * On the first SIGTERM or SIGINT prints "received SIGNAL, shutting down", runs
 * `stop` once and exits 0 when it resolves, 1 when it rejects. Later signals
 * are ignored while stopping.
 */
export function exitOnSignals(stop: () => Promise<void>): void {
  let shuttingDown = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (shuttingDown) return;
    shuttingDown = true;
    process.stdout.write(`received ${signal}, shutting down\n`);
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`apiary: shutdown failed: ${err instanceof Error ? err.stack : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

/** Waits for `work` but at most `ms`: resolves on timeout, rejects if `work` rejects first. */
export async function waitAtMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
