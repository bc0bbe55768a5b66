// Borrowing re-divided periodically from seat demand, as kube-apiserver 1.32
// (src/server/flowcontrol/borrowing.ts and FlowController.rebalance): the fair
// division itself, the demand statistics, and a level that lends its seats
// while idle and gets them back at the first re-division after its demand
// appears; the seats hold between re-divisions.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SeatDemand, allocate } from '../../src/server/flowcontrol/borrowing.js';
import { FlowController, isTicket, type Ticket, type Rejection } from '../../src/server/flowcontrol/controller.js';
import type { FlowSchema, PriorityLevelConfiguration } from '../../src/api/flowcontrol/v1/types.js';

const close = (a: number, b: number, what: string): void => assert.ok(Math.abs(a - b) < 1e-6, `${what}: ${a} != ${b}`);

test('allocate: shares of the total in proportion to the targets, within each item\'s bounds', () => {
  const free = allocate(30, [{ lower: 0, upper: 100, target: 10 }, { lower: 0, upper: 100, target: 20 }]);
  close(free.allocations[0]!, 10, 'no bound matters');
  close(free.allocations[1]!, 20, 'no bound matters');
  close(free.fairFrac, 1, 'fairFrac');
  const bounded = allocate(30, [{ lower: 0, upper: 5, target: 10 }, { lower: 0, upper: 100, target: 10 }, { lower: 12, upper: 12, target: 12 }]);
  close(bounded.allocations[0]!, 5, 'upper bound');
  close(bounded.allocations.reduce((a, b) => a + b, 0), 30, 'sum');
  close(bounded.allocations[1]!, 13, 'the rest in proportion');
  close(bounded.allocations[2]!, 12, 'fixed');
  assert.deepEqual(allocate(10, [{ lower: 6, upper: 9, target: 6 }, { lower: 6, upper: 9, target: 6 }]).allocations, [6, 6], 'lower bounds past the total');
  assert.deepEqual(allocate(30, [{ lower: 0, upper: 9, target: 6 }, { lower: 0, upper: 9, target: 6 }]).allocations, [9, 9], 'upper bounds short of the total');
  // A zero target counts as a tiny one: such an item only takes what nobody else can.
  const idle = allocate(21, [{ lower: 10, upper: 20, target: 10 }, { lower: 0, upper: Infinity, target: 0 }, { lower: 1, upper: 1, target: 1 }]);
  assert.ok(idle.allocations[0]! > 19.99, 'the busy item nearly all it may');
  assert.ok(idle.allocations[1]! < 0.01, 'the idle one next to nothing');
  close(idle.allocations.reduce((a, b) => a + b, 0), 21, 'sum');
});

test('seat demand: time-weighted mean, deviation and high watermark per period; smoothed as upstream', () => {
  const d = new SeatDemand(0);
  d.set(4, 0);
  d.set(0, 5_000);
  d.endPeriod(10_000);
  assert.equal(d.highWatermark, 4);
  close(d.average, 2, 'mean');
  close(d.stdDev, 2, 'deviation');
  close(d.smoothed, 4, 'the first envelope');
  d.endPeriod(20_000);
  assert.equal(d.highWatermark, 0, 'the next period starts at the current value');
  close(d.smoothed, 0.977 * 4, 'an idle period decays the smoothed demand');
});

function level(name: string, shares: number, lendablePercent: number, borrowingLimitPercent?: number): PriorityLevelConfiguration {
  return {
    metadata: { name, uid: `uid-${name}` },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, lendablePercent, ...(borrowingLimitPercent !== undefined ? { borrowingLimitPercent } : {}), limitResponse: { type: 'Queue', queuing: { queues: 8, handSize: 2, queueLengthLimit: 50 } } } },
  };
}

function schema(name: string, precedence: number, user: string): FlowSchema {
  return {
    metadata: { name, uid: `uid-${name}` },
    spec: { priorityLevelConfiguration: { name }, matchingPrecedence: precedence, rules: [{ subjects: [{ kind: 'User', user: { name: user } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] }] },
  };
}

test('an idle level lends its seats; the first re-division after its demand appears gives them back', async () => {
  let clock = 0;
  const fc = new FlowController({ maxRequestsInflight: 20, maxMutatingRequestsInflight: 0, queueWaitLimitMs: 60_000, monotonic: () => clock });
  // 20 seats: catch-all 5 of 105 shares → 1; lender and borrower 50 each → 10.
  fc.configure([schema('lender', 100, 'lena'), schema('borrower', 100, 'bob')], [level('lender', 50, 100), level('borrower', 50, 0, 100)]);
  const lender = fc.classify({ user: 'lena', groups: [], isResourceRequest: true, verb: 'get', apiGroup: '', resource: 'pods', subresource: '', namespace: 'x', path: '' });
  const borrower = fc.classify({ user: 'bob', groups: [], isResourceRequest: true, verb: 'get', apiGroup: '', resource: 'pods', subresource: '', namespace: 'x', path: '' });
  assert.equal(lender.level.config.limits.nominal, 10);
  assert.equal(borrower.level.config.limits.max, 20);
  // Nothing seen yet: the lender's target is next to nothing, the borrower takes up to its bound.
  assert.equal(borrower.level.currentLimit, 19);
  assert.equal(lender.level.currentLimit, 1);
  const held: Ticket[] = [];
  for (let i = 0; i < 19; i++) held.push(fc.admit(borrower, 1) as Ticket);
  assert.ok(held.every(isTicket));
  assert.ok(fc.admit(borrower, 1) instanceof Promise, 'past its current limit the borrower waits');
  // The lender's demand appears: until the next re-division it has its one seat.
  const lent = [fc.admit(lender, 1)];
  assert.ok(isTicket(lent[0] as Ticket));
  const waiting = Array.from({ length: 9 }, () => fc.admit(lender, 1) as Promise<Ticket | Rejection>);
  assert.equal(lender.level.waiting, 9);
  clock += 10_000;
  fc.rebalance();
  assert.equal(lender.level.demand.highWatermark, 10);
  assert.equal(lender.level.currentLimit, 10, 'the lender gets its seats back');
  assert.ok(borrower.level.currentLimit <= 11, `the borrower keeps what is left (${borrower.level.currentLimit})`);
  assert.ok(fc.fairFrac > 0);
  await new Promise((r) => setImmediate(r));
  assert.equal(lender.level.waiting, 0, 'the lender\'s waiters started with the re-division');
  for (const t of held) t.release();
  (lent[0] as Ticket).release();
  for (const w of waiting) ((await w) as Ticket).release();
});
