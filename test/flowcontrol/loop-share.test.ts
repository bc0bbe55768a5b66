// The flows' shares of the event loop's time (src/server/flowcontrol/loop-share.ts):
// while two flows compete and their loop time together passes the budget, a
// flow above its equal part waits even with nothing in flight, one under its
// part starts at once, and the waiter starts once its loop time has decayed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { FlowController, isTicket, type Ticket } from '../../src/server/flowcontrol/controller.js';
import { LoopLimit } from '../../src/server/flowcontrol/loop-limit.js';
import { LoopCost } from '../../src/server/flowcontrol/loop-cost.js';
import { LoopShare, TAU_MS } from '../../src/server/flowcontrol/loop-share.js';
import type { FlowLoad } from '../../src/server/flowcontrol/queueset.js';
import { createDigest as digest } from '../helpers/flow-digest.js';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS } from '../../src/api/flowcontrol/v1/bootstrap.js';

/**
 * A controller under a dispatch limit of 2 and a loop-time budget of 0.5,
 * whose loop busy time (ms, as LoopCost reads it) and monotonic clock (ms)
 * the test moves by hand.
 */
function controllerOn(loop: { busy: number; clock: number }): FlowController {
  const fc = new FlowController({
    loopLimit: new LoopLimit({ min: 2, initial: 2 }),
    loopCost: new LoopCost(() => loop.busy),
    loopShare: new LoopShare(0.5),
    monotonic: () => loop.clock,
    queueWaitLimitMs: 60_000,
  });
  fc.configure([...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS], [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS]);
  return fc;
}

test('LoopShare: a flow above its part of the budget waits while the flows together are over it and a flow without a backlog wants the loop', () => {
  const share = new LoopShare(0.5); // 50 ms of each 100 ms: 25 ms each for two flows
  const flood: FlowLoad = { executing: 0, waiting: 0 };
  const light: FlowLoad = { executing: 0, waiting: 0 };
  share.charge(flood, 40, 0);
  share.charge(light, 4, 0);
  assert.equal(share.wait(flood, 2, 0, 4), 0, 'above its part, but the total (44 ms) is under the budget');
  share.charge(flood, 20, 0);
  assert.equal(share.wait(flood, 2, 0, 4), 0, 'over the budget, but the flow without a backlog used 4 ms of the last 100: nothing worth holding the flood for');
  share.charge(light, 16, 0);
  assert.equal(share.wait(flood, 2, 0, 0), 0, 'when the other flows all have backlogs nobody is held: they gain nothing from an idle loop');
  const wait = share.wait(flood, 2, 0, 20);
  assert.ok(wait > 0, 'above its part with the total (80 ms) over the budget, beside a flow without a backlog: it waits');
  // The total falls under the budget first: 80 × e^(-t/τ) = 50 (the flood under its part: 60 × e^(-t/τ) = 25, later).
  assert.ok(Math.abs(wait - TAU_MS * Math.log(80 / 50)) < 1e-9, `waits until the total decays under the budget (${wait} ms)`);
  assert.equal(share.wait(light, 2, 0, 0), 0, 'the flow under its part starts at once');
  assert.ok(share.wait(flood, 2, wait / 2, 20) > 0, 'half-way, still held');
  assert.equal(share.wait(flood, 2, wait + 0.01, 20), 0, 'once decayed, it may start');
  // A correction at the finish: charged 20 in all, the requests took 5.
  share.charge(light, -15, 0);
  assert.ok(Math.abs(share.spent(light, 0) - 5) < 1e-9);
  share.charge(light, -100, 0);
  assert.equal(share.spent(light, 0), 0, 'never below nothing');
  assert.ok(Math.abs(share.spent(flood, TAU_MS) - 60 / Math.E) < 1e-9, 'loop time decays over TAU_MS');
});

test('under the dispatch limit, a flood that has taken its part of the loop waits with nothing in flight while a light flow starts; it starts once its time has decayed', async () => {
  const loop = { busy: 0, clock: 1_000 };
  const fc = controllerOn(loop);
  const alice = fc.classify(digest('alice'));
  const bob = fc.classify(digest('bob'));
  const a = fc.admit(alice, 1) as Ticket;
  const b = fc.admit(bob, 1) as Ticket;
  assert.ok(isTicket(a) && isTicket(b), 'both start: nobody has used the loop yet');
  const next = fc.admit(bob, 1);
  assert.ok(next instanceof Promise, 'at his share of the dispatch limit (one of two), bob\'s second request queues');
  const got: { ticket?: Ticket } = {};
  void next.then((t) => { got.ticket = t as Ticket; });
  const current = (): Ticket | undefined => got.ticket;
  loop.busy += 60; // bob's create held the loop 60 ms
  b.finish();
  loop.busy += 10; // alice's request, 10 ms
  a.finish();
  await sleep(30);
  assert.ok(current() === undefined, 'bob, with a backlog, over his part, the total over the budget and alice wanting the loop, waits although nothing of his is in flight');
  const light = fc.admit(alice, 1);
  assert.ok(!(light instanceof Promise) && isTicket(light), 'alice, without a backlog, starts at once');
  (light as Ticket).finish();
  loop.clock += 40; // the total (70 ms) decays under 50 in about 34 ms
  await sleep(40);
  // The dispatcher's timer is due first; it dispatches on the next turn (setImmediate), as this one waits.
  await new Promise((resolve) => setImmediate(resolve));
  const started = current();
  assert.ok(started !== undefined && isTicket(started), 'bob starts once his loop time has decayed, without another request finishing');
  started.finish();
  const alone = fc.admit(bob, 1);
  assert.ok(!(alone instanceof Promise), 'without a backlog bob is not held for loop time');
  (alone as Ticket).finish();
});

test('two floods, both with backlogs, are not held for loop time: the loop is not left idle for flows that would only queue', async () => {
  const loop = { busy: 0, clock: 1_000 };
  const fc = controllerOn(loop);
  const bob = fc.classify(digest('bob'));
  const carol = fc.classify(digest('carol'));
  const b = fc.admit(bob, 1) as Ticket;
  const c = fc.admit(carol, 1) as Ticket;
  assert.ok(isTicket(b) && isTicket(c));
  const queued = [fc.admit(bob, 1), fc.admit(carol, 1)];
  assert.ok(queued.every((p) => p instanceof Promise), 'at the dispatch limit (one each), both floods queue');
  const started: string[] = [];
  void (queued[0] as Promise<Ticket>).then((t) => { started.push('bob'); t.finish(); });
  void (queued[1] as Promise<Ticket>).then((t) => { started.push('carol'); t.finish(); });
  loop.busy += 60; // each held the loop 60 ms: together far over the budget
  b.finish();
  loop.busy += 60;
  c.finish();
  await sleep(20);
  assert.deepEqual(started.sort(), ['bob', 'carol'], 'both start again at once, on the controller\'s unchanged clock');
});
