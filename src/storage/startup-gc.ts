// One full garbage collection shortly after start-up, in this thread.
//
// Why: starting on a large store is a burst (the watch caches' initial lists,
// every informer's first list, the RBAC index), and most of what it allocates
// is garbage at once. V8 sizes the old generation's next collection from the
// peak, so after the burst the heap keeps that garbage (about as much again as
// what is live) until enough is allocated to reach the limit, which an idle
// or lightly used server may not do for a long time; RSS shows the peak.
// kube-apiserver's Go runtime collects at twice the live heap and returns idle
// pages within minutes. A full collection once the burst is over costs one
// pause of a few hundred milliseconds and lets V8 size its heap from what is
// live.
//
// Contract: collectWhenSettled() watches the process's CPU time (every
// thread's) once a second and runs one full collection in this thread at the
// first second that used less than 5 % of a core (the burst is over) from
// the third on, or after 60 s at the latest. Timers are unref'd (they never keep a process
// alive); the returned function cancels a collection that has not run.
// Without a way to collect (an embedder that refuses the flag) it does nothing.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let engineGc: (() => void) | null | undefined;

/** The engine's full collection (gc), made reachable without exposing it to the program's global scope. */
function fullCollection(): (() => void) | undefined {
  if (engineGc === undefined) {
    try {
      const exposed = typeof (globalThis as { gc?: unknown }).gc === 'function';
      setFlagsFromString('--expose-gc');
      engineGc = runInNewContext('gc') as () => void;
      if (!exposed) setFlagsFromString('--no-expose-gc');
    } catch {
      engineGc = null;
    }
  }
  return engineGc ?? undefined;
}

export interface SettleOptions {
  /** How often CPU time is sampled (default 1000 ms). */
  intervalMs?: number;
  /** A sample below this share of one core counts as settled (default 0.05). */
  quietShare?: number;
  /** A quiet sample before this long does not count (default 3 s: the informers may not have started). */
  minWaitMs?: number;
  /** Collect after this long even when never settled (default 60 s). */
  maxWaitMs?: number;
  /** Process CPU time in microseconds (default process.cpuUsage()'s user + system). */
  cpuMicros?: () => number;
  /** The collection (default the engine's full collection). */
  collect?: () => void;
}

export function collectWhenSettled(options: SettleOptions = {}): () => void {
  const intervalMs = options.intervalMs ?? 1000;
  const quiet = (options.quietShare ?? 0.05) * intervalMs * 1000;
  const maxSamples = Math.ceil((options.maxWaitMs ?? 60_000) / intervalMs);
  const minSamples = Math.ceil((options.minWaitMs ?? 3000) / intervalMs);
  const cpu =
    options.cpuMicros ??
    ((): number => {
      const u = process.cpuUsage();
      return u.user + u.system;
    });
  const collect = options.collect ?? fullCollection();
  if (collect === undefined) return () => {};
  let last = cpu();
  let samples = 0;
  const timer = setInterval(() => {
    const now = cpu();
    const used = now - last;
    last = now;
    samples++;
    if ((used < quiet && samples >= minSamples) || samples >= maxSamples) {
      clearInterval(timer);
      collect();
    }
  }, intervalMs).unref();
  return () => clearInterval(timer);
}
