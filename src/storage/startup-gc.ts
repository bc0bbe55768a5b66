// Full garbage collections when a thread goes quiet after a burst: one after
// start-up, then again whenever the heap has grown well past what was live.
//
// Why: starting on a large store is a burst (the watch caches' initial lists,
// every informer's first list, the RBAC index), and so is a load of writes;
// most of what they allocate is garbage at once. V8 sizes the old
// generation's next collection from the peak, so after the burst the heap
// keeps that garbage (about as much again as what is live) until enough is
// allocated to reach the limit, which an idle or lightly used server may not
// do for a long time; RSS shows the peak. kube-apiserver's Go runtime collects
// at twice the live heap and returns idle pages within minutes. A full
// collection once the burst is over costs one pause of a few hundred
// milliseconds while nothing waits, and lets V8 size its heap from what is live.
//
// Quiet is this thread's own event loop: busy less than 5 % of a sample (one
// second). Not the process's CPU time: the etcd client thread, V8's helper
// threads (concurrent marking of a large heap) and other threads kept an idle
// server above 5 % of a core for tens of seconds after a restart, so the
// collection came 20–50 s late.
//
// The heap counts the memory of ArrayBuffers (Buffers) too: after a restart on
// etcd, 40 MiB of response buffers hung from a few dead objects.
//
// A follow-up collection some quiet seconds after each one gives back the new
// space: V8 shrinks it only when a collection sees a low allocation rate, which
// the one at a burst's end does not (the main thread kept 32 MiB of it, the
// etcd client thread as much before its young generation was capped).
//
// Contract: collectWhenSettled() samples this thread's event loop once a
// second. The first collection runs at the first quiet sample from the third
// second on (start-up's burst is over), or after 60 s at the latest. After
// that, a quiet sample collects again when the heap (used, plus ArrayBuffers')
// has grown past 1.25 times what the last collection left plus 16 MiB, at most
// once every 5 s; each of these is followed by one more 5 s or more later.
// These later ones wait for 10 quiet samples in a row: a client that pauses a
// second between requests should not meet a collection's pause, nor should a
// load that comes in bursts a few seconds apart pay for one. After a
// compacting collection on a quiet loop V8 restarts small (new space returned,
// the next old-generation limit close to what is live), and the next burst
// collects often until it has grown again: with 3 quiet seconds, 3 s bursts
// of creates 7-10 s apart cost 15-35 % more CPU per create than the same
// bursts back to back (bench/profile-ops.ts; the side-by-side's bursts are
// that far apart). Each thread that allocates in bursts (the main
// thread, the etcd client thread) runs its own. Timers are unref'd (they never
// keep a thread alive); the returned function stops the sampling. Without a
// way to collect (an embedder that refuses the flag) it does nothing.

import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

let engineGc: (() => void) | null | undefined;

/**
 * The engine's full collection (gc), made reachable without exposing it to
 * the program's global scope, run twice: the second compacts the pages the
 * first left sparse (after a restart on etcd with 30,000 objects, one left
 * 205 MiB of heap committed for 119 live, two 158), and compacts every page
 * (--compact-on-every-full-gc, for that collection only). V8's own choice
 * moves at most a few MiB per collection, from the sparsest pages: after a
 * burst (a load of 30,000 objects on etcd, a restart's initial lists) the old
 * space kept 124 MiB committed for 94 live; compacted, 96, and the API
 * server's RSS restarted on that store 204 MiB instead of 248. The pause is
 * longer (the pair took 320–400 ms for 100 MiB live), and comes only when
 * the thread is quiet. The flag is the
 * process's, read by each collection: a worker thread collecting meanwhile
 * compacts too, which is harmless.
 */
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
  const gc = engineGc;
  if (!gc) return undefined;
  return () => {
    gc();
    setFlagsFromString('--compact-on-every-full-gc');
    try {
      gc();
    } finally {
      setFlagsFromString('--no-compact-on-every-full-gc');
    }
  };
}

export interface SettleOptions {
  /** How often the event loop is sampled (default 1000 ms). */
  intervalMs?: number;
  /** A sample whose loop was busy less than this share of it counts as quiet (default 0.05). */
  quietShare?: number;
  /** A quiet sample before this long does not count (default 3 s: the informers may not have started). */
  minWaitMs?: number;
  /** The first collection runs after this long even when never quiet (default 60 s). */
  maxWaitMs?: number;
  /** Later collections on growth: at most one per this long (default 5 s). */
  minGapMs?: number;
  /** The follow-up collection: this long after a collection at the earliest (default 5 s). */
  followUpMs?: number;
  /** Collections after the first wait for the loop to have been quiet this long in a row (default 10 s). */
  quietMs?: number;
  /** Later collections: when the used heap exceeds what the last one left times this (default 1.25) … */
  growth?: number;
  /** … plus this many bytes (default 16 MiB). */
  slackBytes?: number;
  /** The share of the time since the previous call this thread's event loop was busy (default from performance.eventLoopUtilization()). */
  utilization?: () => number;
  /** The heap's bytes in use (default v8.getHeapStatistics()'s used_heap_size + external_memory). */
  usedHeap?: () => number;
  /** The collection (default the engine's full collection). */
  collect?: () => void;
}

/** This thread's event loop utilisation since the previous call. */
function loopUtilization(): () => number {
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const share = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    return share;
  };
}

export function collectWhenSettled(options: SettleOptions = {}): () => void {
  const intervalMs = options.intervalMs ?? 1000;
  const quiet = options.quietShare ?? 0.05;
  const samplesOf = (ms: number): number => Math.ceil(ms / intervalMs);
  const maxSamples = samplesOf(options.maxWaitMs ?? 60_000);
  const minSamples = samplesOf(options.minWaitMs ?? 3000);
  const gapSamples = samplesOf(options.minGapMs ?? 5000);
  const followUpSamples = samplesOf(options.followUpMs ?? 5000);
  const quietSamples = samplesOf(options.quietMs ?? 10_000);
  const growth = options.growth ?? 1.25;
  const slack = options.slackBytes ?? 16 * 1024 * 1024;
  const busy = options.utilization ?? loopUtilization();
  const usedHeap =
    options.usedHeap ??
    ((): number => {
      const h = getHeapStatistics();
      return h.used_heap_size + h.external_memory;
    });
  const collect = options.collect ?? fullCollection();
  if (collect === undefined) return () => {};
  let samples = 0;
  /** The sample of the last collection (-1: none yet), the heap it left, and whether its follow-up is still to come. */
  let collectedAt = -1;
  let left = 0;
  let followUp = false;
  /** Quiet samples in a row. */
  let quietRun = 0;
  const run = (): void => {
    collect();
    collectedAt = samples;
    left = usedHeap();
  };
  const timer = setInterval(() => {
    samples++;
    const isQuiet = busy() < quiet;
    quietRun = isQuiet ? quietRun + 1 : 0;
    if (collectedAt < 0) {
      if ((isQuiet && samples >= minSamples) || samples >= maxSamples) {
        run();
        followUp = true;
      }
      return;
    }
    if (quietRun < quietSamples) return;
    const since = samples - collectedAt;
    if (followUp && since >= followUpSamples) {
      run();
      followUp = false;
    } else if (since >= gapSamples && usedHeap() > left * growth + slack) {
      run();
      followUp = true;
    }
  }, intervalMs).unref();
  return () => clearInterval(timer);
}
