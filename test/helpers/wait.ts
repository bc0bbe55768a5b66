// Bounded waiting for tests: poll a condition until it holds, or retry a call
// while a server restarts. Every wait has a deadline and fails with what it
// was waiting for, so a stuck test says why instead of hanging.

/** Polls `check` every intervalMs until it returns true; throws after timeoutMs naming `what`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000, intervalMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Calls `fn` until it resolves, every intervalMs, for at most budgetMs (e.g.
 * while a restarted server starts accepting connections again); then rethrows
 * the last error.
 */
export async function retry<T>(fn: () => Promise<T>, budgetMs = 5000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() + intervalMs > deadline) throw err;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}
