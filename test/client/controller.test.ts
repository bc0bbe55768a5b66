import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runController } from '../../src/client/controller.js';
import { FakeClock } from '../../src/client/fake-clock.js';
import { silentLogger } from '../../src/client/logger.js';
import { ItemExponentialFailureRateLimiter } from '../../src/client/rate-limiters.js';
import { WorkQueue } from '../../src/client/workqueue.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

async function settle(times = 5): Promise<void> {
  for (let i = 0; i < times; i++) await tick();
}

describe('runController', () => {
  it('retries a failing key with per-key backoff, forgets it on success, and honours requeueAfter', async () => {
    const clock = new FakeClock();
    const queue = new WorkQueue<string>({ clock, rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1000) });
    const calls: string[] = [];
    let failures = 2;
    const controller = new AbortController();
    const running = runController({
      queue,
      workers: 2,
      signal: controller.signal,
      logger: silentLogger,
      reconcile: async (key) => {
        calls.push(key);
        if (key === 'flaky' && failures-- > 0) throw new Error('not yet');
        if (key === 'periodic') return { requeueAfter: 1000 };
      },
    });
    queue.add('flaky');
    queue.add('periodic');
    await settle();
    assert.deepEqual(calls.sort(), ['flaky', 'periodic']);
    assert.equal(queue.numRequeues('flaky'), 1);
    clock.step(5);
    await settle();
    assert.equal(calls.filter((k) => k === 'flaky').length, 2, 'first retry after 5 ms');
    clock.step(9);
    await settle();
    assert.equal(calls.filter((k) => k === 'flaky').length, 2, 'second retry waits 10 ms');
    clock.step(1);
    await settle();
    assert.equal(calls.filter((k) => k === 'flaky').length, 3);
    assert.equal(queue.numRequeues('flaky'), 0, 'success forgets the backoff');
    clock.step(1000);
    await settle();
    assert.equal(calls.filter((k) => k === 'periodic').length, 2, 'requeueAfter brings the key back');
    controller.abort();
    await running;
    assert.equal(queue.isShuttingDown(), true);
  });

  it('never reconciles one key on two workers at once, and reconciles a key changed meanwhile again', async () => {
    const queue = new WorkQueue<string>();
    let inFlight = 0;
    let maxInFlight = 0;
    let calls = 0;
    let release: (() => void) | undefined;
    const controller = new AbortController();
    const running = runController({
      queue,
      workers: 4,
      signal: controller.signal,
      logger: silentLogger,
      reconcile: async () => {
        calls++;
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        if (calls === 1) await new Promise<void>((r) => (release = r));
        inFlight--;
      },
    });
    queue.add('k');
    await settle();
    queue.add('k');
    queue.add('k');
    await settle();
    assert.equal(calls, 1);
    release!();
    await settle();
    assert.equal(calls, 2, 'the change during processing is reconciled once more');
    assert.equal(maxInFlight, 1);
    controller.abort();
    await running;
  });

  it('waits for the informers to sync before starting work', async () => {
    const queue = new WorkQueue<string>();
    let synced = false;
    const calls: string[] = [];
    const controller = new AbortController();
    queue.add('k');
    const running = runController({ queue, signal: controller.signal, logger: silentLogger, informers: [{ hasSynced: () => synced }], reconcile: (k) => void calls.push(k) });
    await new Promise((r) => setTimeout(r, 150));
    assert.deepEqual(calls, []);
    synced = true;
    await new Promise((r) => setTimeout(r, 150));
    assert.deepEqual(calls, ['k']);
    controller.abort();
    await running;
  });
});
