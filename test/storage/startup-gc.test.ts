// The quiet-time collections (src/storage/startup-gc.ts): the first at the
// first quiet sample of this thread's event loop after the minimum wait (or
// at the maximum wait), later ones only on a quiet sample once the heap has
// grown past what the last collection left, at most one per gap; a follow-up
// some quiet samples after each of those; stopped, none. Utilisation, heap size and the collection are given as parameters;
// the default utilisation (this thread's loop, not the process's CPU) and the
// engine's own collection are exercised last.

import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapSpaceStatistics } from 'node:v8';
import { collectWhenSettled } from '../../src/storage/startup-gc.js';

const MiB = 1024 * 1024;

/**
 * Runs collectWhenSettled on mocked timers (1 s samples) for as many samples
 * as `loop` has entries, the i-th sample seeing loop[i] as its utilisation and
 * heap[i] (default 0) as the used heap, or `live` once it collected; returns
 * the samples (1-based) that collected.
 */
function run(options: Parameters<typeof collectWhenSettled>[0], loop: number[], heap: number[] = [], live = 0): number[] {
  mock.timers.enable({ apis: ['setInterval'] });
  try {
    let sample = 0;
    const at: number[] = [];
    const stop = collectWhenSettled({
      ...options,
      utilization: () => loop[sample - 1]!,
      usedHeap: () => (at[at.length - 1] === sample ? live : (heap[sample - 1] ?? 0)),
      collect: () => at.push(sample),
    });
    for (sample = 1; sample <= loop.length; sample++) mock.timers.tick(1000);
    stop();
    return at;
  } finally {
    mock.timers.reset();
  }
}

const BUSY = 0.5;
const QUIET = 0.01;

test('collects first at the first quiet sample from the minimum wait on', () => {
  // Quiet (too early), busy, busy, quiet, busy, quiet…, busy, quiet…
  const at = run({ minWaitMs: 3000, followUpMs: 5000, quietMs: 3000 }, [QUIET, BUSY, BUSY, QUIET, BUSY, QUIET, QUIET, QUIET, BUSY, BUSY, QUIET, ...Array(20).fill(QUIET)]);
  assert.deepEqual(at, [4, 13], 'the fourth sample is the first quiet one from 3 s on; the follow-up the third of three quiet ones in a row from 5 s later; an unchanged heap is not collected again');
});

test('collects first at the maximum wait when never quiet, and not when stopped', () => {
  assert.deepEqual(run({ minWaitMs: 0, maxWaitMs: 5000 }, Array(8).fill(BUSY)), [5]);
  mock.timers.enable({ apis: ['setInterval'] });
  try {
    let ran = 0;
    const stop = collectWhenSettled({ minWaitMs: 0, utilization: () => 0, usedHeap: () => 0, collect: () => ran++ });
    stop();
    mock.timers.tick(5000);
    assert.equal(ran, 0);
  } finally {
    mock.timers.reset();
  }
});

test('collects again on a quiet sample once the heap has grown past the threshold, at most once per gap, each with a follow-up', () => {
  const options = { minWaitMs: 0, minGapMs: 5000, followUpMs: 3000, quietMs: 1000, growth: 1.25, slackBytes: 16 * MiB };
  // Every collection leaves 100 MiB: the threshold is 141 MiB.
  const loop: number[] = [];
  const heap: number[] = [];
  const add = (n: number, share: number, mib: number): void => {
    for (let i = 0; i < n; i++) (loop.push(share), heap.push(mib * MiB));
  };
  add(1, QUIET, 100); // 1: the first collection
  add(8, QUIET, 140); // 2–9: its follow-up at 4; grown, but under the threshold
  add(3, BUSY, 300); // 10–12: a burst, the loop busy
  add(9, QUIET, 300); // 13: quiet again after the burst; its follow-up at 16; garbage again, but the next at 21 (5 s after 16)
  assert.deepEqual(run(options, loop, heap, 100 * MiB), [1, 4, 13, 16, 21]);
});

test('later collections wait for quiet samples in a row: a client pausing now and then meets none', () => {
  // The first at 1; then the heap stays grown while the loop alternates quiet and busy seconds, then stays quiet.
  const loop = [QUIET, ...Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? QUIET : BUSY)), QUIET, QUIET, QUIET];
  const heap = Array(loop.length).fill(300 * MiB);
  assert.deepEqual(run({ minWaitMs: 0, minGapMs: 1000, followUpMs: 1000, quietMs: 3000 }, loop, heap, 100 * MiB), [1, 24]);
});

test('by default a load in bursts a few seconds apart meets no later collection; ten quiet seconds do', () => {
  // The first at 1, its follow-up at 10 (ten quiet samples in a row); then 3 s bursts 7 s apart with the heap grown.
  const loop = Array(15).fill(QUIET);
  for (let burst = 0; burst < 4; burst++) loop.push(...Array(3).fill(BUSY), ...Array(7).fill(QUIET));
  const bursts = loop.length;
  // The last burst's 7 quiet samples and 3 more make ten in a row.
  loop.push(...Array(5).fill(QUIET));
  const heap = [...Array(15).fill(100 * MiB), ...Array(loop.length - 15).fill(300 * MiB)];
  assert.deepEqual(run({ minWaitMs: 0 }, loop, heap, 100 * MiB), [1, 10, bursts + 3]);
});

test('a busy other thread does not delay the collection: quiet is this thread\'s event loop', async () => {
  // A worker spins for 1.5 s: the process uses a whole core, this thread's loop is idle.
  const spinner = new Worker('const end = Date.now() + 1500; while (Date.now() < end);', { eval: true });
  try {
    await sleep(50);
    const started = performance.now();
    let after = -1;
    collectWhenSettled({ intervalMs: 50, minWaitMs: 0, maxWaitMs: 10_000, usedHeap: () => 0, collect: () => (after = performance.now() - started) });
    await sleep(500);
    assert.ok(after >= 0 && after < 400, `collected ${after} ms after the start, with another thread busy`);
  } finally {
    await spinner.terminate();
  }
});

test('the engine\'s collection frees what is unreachable, without exposing gc to the program', async () => {
  let garbage: object[] | undefined = Array.from({ length: 200_000 }, (_, i) => ({ i, s: `x${i}` }));
  const ref = new WeakRef(garbage);
  garbage = undefined;
  collectWhenSettled({ intervalMs: 10, minWaitMs: 0, maxWaitMs: 10, utilization: () => 0 });
  await sleep(100);
  assert.equal(ref.deref(), undefined);
  assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined');
});

test('the engine\'s collection compacts the old space: a heap half garbage after a burst keeps no sparse pages', async () => {
  // Long-lived values interleaved with as many that live long enough to be
  // promoted and then die (a restart's initial lists): the old space is left
  // with every page half empty. V8's own choice moves a few MiB per
  // collection (committed about 1.1 times what is live, here); compacted, it is dense.
  const kept: string[] = [];
  let promoted: unknown[] = [];
  for (let i = 0; i < 180_000; i++) {
    const s = JSON.stringify({ a: 'x'.repeat(500) + i, b: i, c: { d: `y${i}` } });
    if (i % 2 === 0) kept.push(s);
    else promoted.push(JSON.parse(s), s);
  }
  promoted = [];
  const stop = collectWhenSettled({ intervalMs: 10, minWaitMs: 0, maxWaitMs: 10, utilization: () => 0 });
  await sleep(300);
  stop();
  const old = getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!;
  assert.equal(kept.length, 90_000);
  assert.ok(old.space_size < old.space_used_size * 1.05, `old space ${(old.space_size / MiB).toFixed(1)} MiB committed for ${(old.space_used_size / MiB).toFixed(1)} MiB used`);
});
