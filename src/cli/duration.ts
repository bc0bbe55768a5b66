// parseDuration: Go's time.ParseDuration syntax for command-line flags, as
// kube-apiserver's duration flags take it ("5m", "1h30m", "250ms", "1.5s",
// "0"). Returns milliseconds (fractions of a millisecond are kept); throws
// an Error naming the bad input otherwise. Negative durations are rejected:
// no flag of ours means anything by them.

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

export function parseDuration(text: string): number {
  if (text === '0') return 0;
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  if (text.length === 0) throw new Error(`invalid duration ${JSON.stringify(text)}`);
  while (at < text.length) {
    part.lastIndex = at;
    const m = part.exec(text);
    if (!m) throw new Error(`invalid duration ${JSON.stringify(text)}`);
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    at = part.lastIndex;
  }
  return total;
}

/** parseDuration for the value of `--flag`; the Error names the flag. */
export function parseDurationFlag(flag: string, text: string): number {
  try {
    return parseDuration(text);
  } catch (err) {
    throw new Error(`invalid --${flag}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
