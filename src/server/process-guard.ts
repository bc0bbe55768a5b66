// The process-level guard: an unhandled promise rejection or an uncaught
// exception (a handler that throws out of band, a timer, a stream callback)
// is logged, counted and survived, so one tenant's bad object or a bug in one
// path does not take every tenant's API server down. kube-apiserver recovers
// a panicking request (HandleCrash) and exits only on what it cannot serve
// past; so does this: the unrecoverable (the listener cannot listen, the heap
// cannot grow) is logged as fatal and the process exits with status 1.
//
// One guard per process (installProcessGuard twice returns the first); its
// counts are process-wide and every server's /metrics reports them as
// apiary_unhandled_errors_total{type="rejection"|"exception"}.

export interface GuardLogger {
  error(obj: object, msg: string): void;
  fatal(obj: object, msg: string): void;
}

export interface ProcessGuardOptions {
  logger: GuardLogger;
  /** How the process ends for the unrecoverable (default process.exit). */
  exit?: (code: number) => void;
}

export interface ProcessGuard {
  /** Removes the handlers (tests). */
  uninstall(): void;
}

const counts = { rejection: 0, exception: 0 };
let installed: ProcessGuard | undefined;

/** Unhandled errors survived so far, by type (zeros when no guard is installed). */
export function unhandledErrorCounts(): Readonly<typeof counts> {
  return counts;
}

/** What no retry or later request can get past: the process must end. */
export function isUnrecoverable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, syscall } = err as { code?: unknown; syscall?: unknown };
  // The API server's own listener failed (port taken, not permitted): nothing is served.
  if (syscall === 'listen') return true;
  return code === 'ERR_MEMORY_ALLOCATION_FAILED' || code === 'ERR_WORKER_OUT_OF_MEMORY';
}

export function installProcessGuard(options: ProcessGuardOptions): ProcessGuard {
  if (installed !== undefined) return installed;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const onRejection = (reason: unknown): void => {
    counts.rejection++;
    options.logger.error({ err: reason }, 'unhandled promise rejection; serving on');
  };
  const onException = (err: Error, origin: string): void => {
    if (isUnrecoverable(err)) {
      options.logger.fatal({ err, origin }, 'unrecoverable error; exiting');
      exit(1);
      return;
    }
    counts.exception++;
    options.logger.error({ err, origin }, 'uncaught exception; serving on');
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  installed = {
    uninstall: () => {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
      installed = undefined;
    },
  };
  return installed;
}
