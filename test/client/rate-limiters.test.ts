import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Backoff } from '../../src/client/backoff.js';
import { FakeClock } from '../../src/client/fake-clock.js';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  defaultControllerRateLimiter,
} from '../../src/client/rate-limiters.js';

describe('rate limiters', () => {
  it('per-item exponential: 5 ms doubling, capped, independent per item', () => {
    const l = new ItemExponentialFailureRateLimiter<string>(5, 1000 * 1000);
    assert.deepEqual([l.when('a'), l.when('a'), l.when('a'), l.when('b')], [5, 10, 20, 5]);
    assert.equal(l.numRequeues('a'), 3);
    for (let i = 0; i < 40; i++) l.when('a');
    assert.equal(l.when('a'), 1000 * 1000);
    l.forget('a');
    assert.equal(l.when('a'), 5);
  });

  it('token bucket: burst free, then 1/qps apart, refilling with time', () => {
    const clock = new FakeClock();
    const l = new BucketRateLimiter<string>(10, 100, clock);
    for (let i = 0; i < 100; i++) assert.equal(l.when(`k${i}`), 0);
    assert.ok(Math.abs(l.when('x') - 100) < 1e-6);
    assert.ok(Math.abs(l.when('y') - 200) < 1e-6);
    clock.step(1000); // 10 tokens back, 2 were owed
    for (let i = 0; i < 8; i++) assert.equal(l.when(`z${i}`), 0);
    assert.ok(l.when('z8') > 0);
  });

  it('fast-slow: fast delay for the first attempts, then slow', () => {
    const l = new ItemFastSlowRateLimiter<string>(10, 1000, 2);
    assert.deepEqual([l.when('a'), l.when('a'), l.when('a')], [10, 10, 1000]);
  });

  it('the default controller limiter is the max of per-item backoff and the overall bucket', () => {
    const clock = new FakeClock();
    const l = defaultControllerRateLimiter<string>(clock);
    assert.equal(l.when('a'), 5);
    assert.equal(l.when('a'), 10);
    for (let i = 0; i < 98; i++) l.when(`k${i}`); // the bucket's burst is used up now
    const delay = l.when('fresh');
    assert.ok(delay > 5 && Math.abs(delay - 100) < 1e-6, `overall limit dominates a fresh key: ${delay}`);
    assert.equal(l.numRequeues('a'), 2);
    l.forget('a');
    assert.equal(l.numRequeues('a'), 0);
  });
});

describe('reflector backoff', () => {
  it('doubles from 800 ms to the 30 s cap with up to 100% jitter, and resets after 2 minutes of quiet', () => {
    const clock = new FakeClock();
    let r = 0;
    const b = new Backoff(clock, { random: () => r });
    assert.deepEqual([b.next(), b.next(), b.next()], [800, 1600, 3200]);
    r = 0.5;
    for (let i = 0; i < 10; i++) b.next();
    assert.equal(b.next(), 45_000, 'capped at 30 s plus jitter');
    clock.step(120_001);
    r = 0.999;
    const d = b.next();
    assert.ok(d >= 800 && d < 1600, `reset to the initial delay: ${d}`);
  });
});
