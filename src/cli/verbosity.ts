// Log verbosity flags. apiary logs start, stop, warnings and errors at the
// default level (info); one line per request only at debug, as kube-apiserver
// logs requests only from -v=3 on. kube-apiserver's klog flag is accepted in
// its spellings (-v=3, --v=3, -v 3, --v 3) beside --log-level.

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']);

/** The pino level a klog verbosity stands for: 0–2 info, 3–5 debug (request lines), 6 and above trace. */
export function levelForVerbosity(v: number): string {
  if (v >= 6) return 'trace';
  if (v >= 3) return 'debug';
  return 'info';
}

/**
 * Rewrites klog's -v/--v (in any of its spellings) into `--v=N` so node's
 * parseArgs reads it as one long option; other arguments are left as they are.
 */
export function normalizeVerbosityArgs(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const m = /^--?v(?:=(.*))?$/.exec(arg);
    if (m === null) {
      out.push(arg);
      continue;
    }
    if (m[1] !== undefined) out.push(`--v=${m[1]}`);
    else if (i + 1 < argv.length && /^\d+$/.test(argv[i + 1]!)) out.push(`--v=${argv[++i]}`);
    else out.push('--v=');
  }
  return out;
}

/**
 * The pino level from --log-level and -v: an explicit --log-level wins; else
 * -v's level; else info. Throws an Error naming the flag on a bad value.
 */
export function resolveLogLevel(logLevel: string | undefined, verbosity: string | undefined): string {
  if (logLevel !== undefined) {
    if (!LEVELS.has(logLevel)) throw new Error(`invalid --log-level ${JSON.stringify(logLevel)}: want trace, debug, info, warn, error or silent`);
    return logLevel;
  }
  if (verbosity !== undefined) {
    if (!/^\d+$/.test(verbosity)) throw new Error(`invalid -v ${JSON.stringify(verbosity)}: want a number (0-10)`);
    return levelForVerbosity(Number(verbosity));
  }
  return 'info';
}
