// The start-up collection (src/storage/startup-gc.ts) runs once, at the first
// quiet sample of CPU time after the minimum wait, or at the maximum wait;
// cancelled, it never runs. CPU time and the collection are given as
// parameters; the engine's own collection is exercised last.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { collectWhenSettled } from '../../src/storage/startup-gc.js';

/** CPU micros that grow by the given amounts, one per sample (the last repeated). */
function cpuSeries(steps: number[]): { cpu: () => number; samples: () => number } {
  let total = 0;
  let calls = 0;
  return {
    cpu: () => {
      // The first call is the baseline.
      if (calls > 0) total += steps[Math.min(calls - 1, steps.length - 1)]!;
      calls++;
      return total;
    },
    samples: () => calls - 1,
  };
}

test('collects once, at the first quiet sample from the minimum wait on', async () => {
  // 10 ms samples: quiet below 5 % of 10 ms = 500 µs. Quiet, busy, busy, quiet (too early), busy, quiet, quiet.
  const series = cpuSeries([0, 9000, 9000, 100, 9000, 100, 100]);
  let collected = 0;
  let at = -1;
  collectWhenSettled({ intervalMs: 10, minWaitMs: 50, maxWaitMs: 10_000, cpuMicros: series.cpu, collect: () => ((at = series.samples()), collected++) });
  await sleep(300);
  assert.equal(collected, 1);
  assert.equal(at, 6, 'the sixth sample is the first quiet one from 50 ms on');
});

test('collects at the maximum wait when never quiet, and not when cancelled', async () => {
  let collected = 0;
  collectWhenSettled({ intervalMs: 10, minWaitMs: 0, maxWaitMs: 50, cpuMicros: cpuSeries([9000]).cpu, collect: () => collected++ });
  let cancelledRan = 0;
  const cancel = collectWhenSettled({ intervalMs: 10, minWaitMs: 0, maxWaitMs: 50, cpuMicros: cpuSeries([0]).cpu, collect: () => cancelledRan++ });
  cancel();
  await sleep(200);
  assert.equal(collected, 1);
  assert.equal(cancelledRan, 0);
});

test('the engine\'s collection frees what is unreachable, without exposing gc to the program', async () => {
  let garbage: object[] | undefined = Array.from({ length: 200_000 }, (_, i) => ({ i, s: `x${i}` }));
  const ref = new WeakRef(garbage);
  garbage = undefined;
  collectWhenSettled({ intervalMs: 10, minWaitMs: 0, maxWaitMs: 10, cpuMicros: () => 0 });
  await sleep(100);
  assert.equal(ref.deref(), undefined);
  assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined');
});
