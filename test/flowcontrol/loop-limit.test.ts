// The dispatch limit that follows the event loop (src/server/flowcontrol/loop-limit.ts)
// and how the controller applies it: beyond the limit, requests of a queuing
// level wait in their fair queues even though their level has seats, and a
// light flow's request starts before a flood's backlog; exempt requests are
// never held; a raised limit dispatches waiters; the limit shrinks with the
// loop's delay and grows back only while requests wait on it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlowController, isTicket, type Ticket, type Rejection } from '../../src/server/flowcontrol/controller.js';
import { LoopLimit, eventLoopDelay, nextLimit } from '../../src/server/flowcontrol/loop-limit.js';
import { LoopCost } from '../../src/server/flowcontrol/loop-cost.js';
import { createDigest as digest } from '../helpers/flow-digest.js';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS } from '../../src/api/flowcontrol/v1/bootstrap.js';

/** `loopCost` null: every request weighs the same (the count-based share these tests were written for). */
function controllerWith(limit: LoopLimit, loopCost: LoopCost | null = null): FlowController {
  const fc = new FlowController({ loopLimit: limit, loopCost, queueWaitLimitMs: 60_000 });
  fc.configure([...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS], [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS]);
  return fc;
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

test('nextLimit: shrinks with the delay past the target of a busy loop, grows only while requests wait and the loop has room, within [min, max]', () => {
  const o = { min: 4, max: 600, targetDelayMs: 10 };
  const busy = (delayMs: number) => ({ delayMs, utilization: 1 });
  assert.equal(nextLimit(32, busy(20), true, o), 16, 'twice the target: halved');
  assert.equal(nextLimit(32, busy(100), true, o), 16, 'never below half in one step');
  assert.equal(nextLimit(32, busy(11), false, o), 28, 'just past the target: 0.9 at most');
  assert.equal(nextLimit(5, busy(50), true, o), 4, 'never below min');
  assert.equal(nextLimit(32, busy(2), true, o), 40, 'well under the target and waited on: x1.25');
  assert.equal(nextLimit(32, busy(7), true, o), 33, 'under the target: +1');
  assert.equal(nextLimit(32, busy(2), false, o), 32, 'nobody waited: stays');
  assert.equal(nextLimit(590, busy(0), true, o), 600, 'never above max');
  // Late timers of a loop idle half the time: the process was not scheduled, or waits on I/O; more requests can use the room.
  assert.equal(nextLimit(32, { delayMs: 40, utilization: 0.5 }, true, o), 40, 'a loop idle half the time grows although its timers are late');
  assert.equal(nextLimit(32, { delayMs: 40, utilization: 0.8 }, true, o), 33);
  assert.equal(nextLimit(32, { delayMs: 40, utilization: 0.5 }, false, o), 32);
});

test('a flood beyond its share of the limit queues although its level has seats; another flow starts at once', async () => {
  const limit = new LoopLimit({ min: 2, initial: 4 });
  const fc = controllerWith(limit);
  const alice = fc.classify(digest('alice'));
  const bob = fc.classify(digest('bob'));
  assert.equal(alice.level.config.name, 'global-default');
  assert.equal(alice.level.config.limits.nominal, 49);
  const running: Ticket[] = [];
  for (let i = 0; i < 4; i++) {
    const t = fc.admit(alice, 1);
    assert.ok(!(t instanceof Promise) && isTicket(t));
    running.push(t);
  }
  const order: string[] = [];
  // Bob has nothing executing: under his share (4 / 2 flows), he starts at once, twice.
  const bobs = [fc.admit(bob, 1), fc.admit(bob, 1)];
  assert.ok(bobs.every((t) => !(t instanceof Promise) && isTicket(t)), 'a light flow beside the flood is not queued');
  const third = fc.admit(bob, 1);
  assert.ok(third instanceof Promise, 'beyond his share bob waits too');
  void third.then((t) => { order.push('bob'); running.push(t as Ticket); });
  const aliceWaiting = Array.from({ length: 30 }, () => fc.admit(alice, 1));
  assert.ok(aliceWaiting.every((p) => p instanceof Promise), 'with two flows, alice is past her share: her requests wait');
  for (const p of aliceWaiting) void (p as Promise<Ticket | Rejection>).then((t) => { order.push('alice'); running.push(t as Ticket); });
  assert.equal(alice.level.seatsInUse, 6);
  assert.equal(alice.level.waiting, 31);
  assert.ok(limit.waited, 'the limit knows requests waited on it');
  // Exempt requests are not held by the limit.
  const admin = fc.admit(fc.classify(digest('admin', ['system:masters'])), 1);
  assert.ok(!(admin instanceof Promise) && isTicket(admin));
  admin.release();
  // Alice is over her share (4 of 2): her finished requests start none of hers until she is under it;
  // bob's finished one lets his third start, on the next turn of the loop.
  running.shift()!.release();
  running.shift()!.release();
  await turn();
  assert.deepEqual(order, []);
  (bobs[0] as Ticket).release();
  assert.deepEqual(order, [], 'waiters start on the next turn of the loop, not inside the release');
  await turn();
  await turn();
  assert.deepEqual(order, ['bob']);
  assert.equal(fc.executingUnderLimit, 4);
  // Bob done: once his flow has been idle a moment, alice's share is the whole limit again.
  (bobs[1] as Ticket).release();
  running.pop()!.release();
  await turn();
  await turn();
  assert.equal(alice.load.executing, 2, 'bob still counts for a moment after his last request');
  // A raised limit dispatches waiters on the next turn: 8 / 2 flows lets alice run 4.
  limit.limit = 8;
  limit.onRaise();
  await turn();
  await turn();
  assert.equal(alice.load.executing, 4);
  // Once bob has lingered out, alice is alone: nothing of hers is held any more.
  await new Promise((r) => setTimeout(r, 700));
  assert.equal(alice.load.waiting, 0, 'alone, a flow is not held');
  assert.equal(fc.executingUnderLimit, 32);
  // Drain.
  while (order.length < 31 || running.length > 0) {
    running.shift()?.release();
    await turn();
  }
  assert.equal(alice.load.executing + alice.load.waiting + bob.load.executing + bob.load.waiting, 0);
  assert.equal(alice.level.seatsInUse, 0);
  assert.equal(fc.executingUnderLimit, 0);
});

test('weighed by loop time: a flow of cheap requests may have several executing where a flood of dear ones has one', async () => {
  // The loop's busy time, as the test says it passes (ms).
  let busy = 0;
  const cost = new LoopCost(() => busy);
  const scenario = (fc: FlowController) => {
    const bob = fc.classify(digest('bob'));
    const alice = fc.classify(digest('alice'));
    // One of bob's creates alone: 4 ms of loop time; one of alice's gets: 0.1 ms.
    const b = fc.admit(bob, 1) as Ticket;
    busy += 4;
    b.release();
    const a = fc.admit(alice, 1) as Ticket;
    busy += 0.1;
    a.release();
    // Both flows active (they linger), the limit 2: each has a share of 1 request at the mean cost.
    const bobs = Array.from({ length: 8 }, () => fc.admit(bob, 1));
    const alices = Array.from({ length: 8 }, () => fc.admit(alice, 1));
    const started = (ts: Array<Ticket | Rejection | Promise<Ticket | Rejection>>) => ts.filter((t) => !(t instanceof Promise)).length;
    return { bob: started(bobs), alice: started(alices), tickets: [...bobs, ...alices] };
  };
  const weighed = scenario(controllerWith(new LoopLimit({ min: 2, initial: 2 }), cost));
  assert.equal(weighed.bob, 1, 'the flood: one at a time');
  assert.ok(weighed.alice >= 4, `cheap requests: several at once (${weighed.alice})`);
  // Counted in requests, the light flow would get one at a time too.
  const counted = scenario(controllerWith(new LoopLimit({ min: 2, initial: 2 })));
  assert.deepEqual([counted.bob, counted.alice], [1, 1]);
  for (const t of [...weighed.tickets, ...counted.tickets]) if (!(t instanceof Promise) && isTicket(t)) t.release();
  await turn();
});

test('waiters start one per turn of the loop under the dispatch limit', async () => {
  const limit = new LoopLimit({ min: 2, initial: 2 });
  const fc = controllerWith(limit);
  const alice = fc.classify(digest('alice'));
  const bob = fc.classify(digest('bob'));
  const first = fc.admit(alice, 1) as Ticket;
  const bobs = [fc.admit(bob, 1) as Ticket];
  const waiting = Array.from({ length: 4 }, () => fc.admit(bob, 1));
  assert.ok(waiting.every((w) => w instanceof Promise));
  let started = 0;
  for (const w of waiting) void (w as Promise<Ticket | Rejection>).then((t) => { started++; bobs.push(t as Ticket); });
  // Room for all four at once; they start on four turns, one each.
  limit.limit = 20;
  limit.onRaise();
  const seen: number[] = [];
  for (let i = 0; i < 5; i++) {
    await turn();
    seen.push(started);
  }
  assert.deepEqual(seen, [1, 2, 3, 4, 4]);
  first.release();
  for (const t of bobs) t.release();
  await turn();
});

test('LoopCost: busy time goes to the request that just started or the one finishing; a request waiting on I/O is not charged for the others\' work', () => {
  let busy = 0;
  const cost = new LoopCost(() => busy);
  // A create starts and runs its first step (1 ms), then waits on its fsync.
  const create = cost.start();
  busy += 1;
  // Meanwhile three GETs, each one turn of 0.2 ms, with parsing (0.1 ms) between.
  for (let i = 0; i < 3; i++) {
    busy += 0.1;
    const get = cost.start();
    busy += 0.2;
    assert.equal(Math.round(cost.finish(get) * 1000) / 1000, 0.2, 'a GET: its own turn');
  }
  // Parsing, then the create's last step (0.5 ms) before it finishes.
  busy += 0.1;
  busy += 0.5;
  assert.equal(Math.round(cost.finish(create) * 1000) / 1000, 1.7, 'its first step (with the parse after it), its last step (with the parse before it), nothing of the GETs');
  // A start and another's finish bounding one interval: half each.
  const x = cost.start();
  const y = cost.start();
  busy += 2;
  assert.equal(cost.finish(x), 1);
  assert.equal(cost.finish(y), 1);
});

test('a queue is charged by the time its requests really took: a flow of quick requests goes ahead of a slow one', async () => {
  // One seat (no dispatch limit): the queues' fair order alone decides who goes next.
  let clock = 0;
  const fc = new FlowController({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 0, queueWaitLimitMs: 60_000, monotonic: () => clock });
  fc.configure(
    [{ metadata: { name: 'shared', uid: 'fs' }, spec: { priorityLevelConfiguration: { name: 'shared' }, matchingPrecedence: 100, distinguisherMethod: { type: 'ByUser' }, rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:authenticated' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] }] } }],
    [{ metadata: { name: 'shared', uid: 'pl' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1000, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 6, queueLengthLimit: 50 } } } } }],
  );
  const slow = fc.classify(digest('slow'));
  const quick = fc.classify(digest('quick'));
  const order: string[] = [];
  const first = fc.admit(slow, 1) as Ticket;
  // Both flows keep requests queued: slow's take 50 ms each, quick's 1 ms.
  const queued = [...Array.from({ length: 20 }, () => ['slow', fc.admit(slow, 1)] as const), ...Array.from({ length: 20 }, () => ['quick', fc.admit(quick, 1)] as const)];
  const starts: Array<{ flow: string; t: Ticket }> = [];
  for (const [flow, p] of queued) void (p as Promise<Ticket | Rejection>).then((t) => starts.push({ flow, t: t as Ticket }));
  let current = { flow: 'slow', t: first };
  while (order.length < queued.length) {
    clock += current.flow === 'slow' ? 50 : 1;
    current.t.release();
    await turn();
    assert.equal(starts.length, 1, 'one request starts per finished one (one seat)');
    current = starts.shift()!;
    order.push(current.flow);
  }
  current.t.release();
  // By request count the two would take turns (quick's last near the end); by time, quick's twenty
  // are done within the first requests of slow's six queues (shuffle sharding gives a flow six).
  const quickDone = order.lastIndexOf('quick');
  assert.ok(quickDone <= 28, `quick's last request started at ${quickDone} (order: ${order.join(',')})`);
});

test('eventLoopDelay measures how long the loop was held', async () => {
  const source = eventLoopDelay(5);
  try {
    await new Promise((r) => setTimeout(r, 20));
    source.read();
    const until = Date.now() + 60;
    while (Date.now() < until) {
      // Hold the loop for 60 ms.
    }
    await new Promise((r) => setTimeout(r, 10));
    const held = source.read();
    assert.ok(held.delayMs >= 40, `measured ${held.delayMs} ms`);
    assert.ok(held.utilization > 0.5, `utilization ${held.utilization}`);
  } finally {
    source.stop();
  }
});
