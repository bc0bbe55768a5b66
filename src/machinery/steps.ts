// Synchronous work written as a generator that yields between pieces, so that
// one implementation serves both a small request (run in one go) and a large
// one (run with pauses that let the event loop serve others: a 100,000-key
// map's validation is one block of 15-40 ms otherwise; server/large-requests.ts).

import { SLICE_BUDGET_MS } from './json-slices.js';

export type Steps<T> = Generator<undefined, T, undefined>;

/** Runs `steps` to the end, in one go. */
export function runSteps<T>(steps: Steps<T>): T {
  let step = steps.next();
  while (step.done !== true) step = steps.next();
  return step.value;
}

/** Runs `steps` to the end, calling `pause` whenever `budgetMs` of work has passed since the last one. */
export async function runStepsPaused<T>(steps: Steps<T>, pause: () => Promise<void>, budgetMs = SLICE_BUDGET_MS): Promise<T> {
  let resumed = performance.now();
  let step = steps.next();
  while (step.done !== true) {
    if (performance.now() - resumed >= budgetMs) {
      await pause();
      resumed = performance.now();
    }
    step = steps.next();
  }
  return step.value;
}
