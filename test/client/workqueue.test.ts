import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/client/fake-clock.js';
import { ItemExponentialFailureRateLimiter } from '../../src/client/rate-limiters.js';
import { WorkQueue } from '../../src/client/workqueue.js';

function newQueue(clock = new FakeClock()): WorkQueue<string> {
  return new WorkQueue<string>({ clock, rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1000) });
}

/** Resolves with the value, or 'pending' if the promise has not settled after the microtask queue drains. */
async function peek<T>(p: Promise<T>): Promise<T | 'pending'> {
  return Promise.race([p, new Promise<'pending'>((r) => setImmediate(() => r('pending')))]);
}

describe('WorkQueue', () => {
  it('processes a key queued twice while waiting only once', async () => {
    const q = newQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.len(), 2);
    assert.deepEqual(await q.get(), { item: 'a', shutdown: false });
    assert.deepEqual(await q.get(), { item: 'b', shutdown: false });
    assert.equal(q.len(), 0);
    assert.equal(await peek(q.get()), 'pending');
  });

  it('never hands the same key to two workers, and reprocesses a key re-added during processing', async () => {
    const q = newQueue();
    q.add('a');
    const first = await q.get();
    assert.equal(first.item, 'a');
    q.add('a'); // changed while being processed
    q.add('a');
    assert.equal(q.len(), 0, 'a processing key is not queued again');
    const second = q.get();
    assert.equal(await peek(second), 'pending', 'a second worker must not get a while it is processing');
    q.done('a');
    assert.deepEqual(await second, { item: 'a', shutdown: false });
    q.done('a');
    assert.equal(await peek(q.get()), 'pending', 'processed exactly once more');
  });

  it('wakes a blocked worker when an item arrives, in FIFO order', async () => {
    const q = newQueue();
    const w1 = q.get();
    const w2 = q.get();
    q.add('x');
    q.add('y');
    assert.equal((await w1).item, 'x');
    assert.equal((await w2).item, 'y');
  });

  it('addAfter holds an item back until its time; the earlier of two times wins', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.addAfter('a', 100);
    q.addAfter('a', 50);
    q.addAfter('b', 70);
    clock.step(49);
    assert.equal(q.len(), 0);
    clock.step(1);
    assert.equal(q.len(), 1);
    assert.equal((await q.get()).item, 'a');
    clock.step(20);
    assert.equal((await q.get()).item, 'b');
    clock.step(100);
    assert.equal(q.len(), 0, 'the superseded later time of a does not add it again');
    assert.equal(clock.pendingTimers(), 0);
  });

  it('addRateLimited backs off per item exponentially; forget resets it', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.addRateLimited('a');
    assert.equal(q.numRequeues('a'), 1);
    clock.step(4);
    assert.equal(q.len(), 0);
    clock.step(1);
    assert.equal(q.len(), 1, 'first retry after 5 ms');
    assert.equal((await q.get()).item, 'a');
    q.addRateLimited('a'); // failed again while processing
    q.done('a');
    clock.step(9);
    assert.equal(q.len(), 0);
    clock.step(1);
    assert.equal(q.len(), 1, 'second retry after 10 ms');
    assert.equal(q.numRequeues('a'), 2);
    q.forget('a');
    assert.equal(q.numRequeues('a'), 0);
    assert.equal((await q.get()).item, 'a');
    q.addRateLimited('a');
    clock.step(5);
    assert.equal(q.len(), 0, 'still processing: queued only after done');
    q.done('a');
    assert.equal(q.len(), 1, 'after forget the backoff starts again at 5 ms');
  });

  it('shutDown hands out what is queued, then reports shutdown to every worker and ignores adds', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.add('a');
    q.addAfter('late', 10);
    q.shutDown();
    q.add('b');
    assert.deepEqual(await q.get(), { item: 'a', shutdown: false });
    assert.deepEqual(await q.get(), { item: undefined, shutdown: true });
    clock.step(20);
    assert.equal(q.len(), 0, 'delayed items are dropped on shutdown');
    const blocked = newQueue();
    const waiting = blocked.get();
    blocked.shutDown();
    assert.deepEqual(await waiting, { item: undefined, shutdown: true });
  });

  it('shutDownWithDrain waits until items being processed are done', async () => {
    const q = newQueue();
    q.add('a');
    await q.get();
    const drained = q.shutDownWithDrain();
    assert.equal(await peek(drained), 'pending');
    q.done('a');
    assert.equal(await peek(drained), undefined);
  });
});
