// The APF controller on its own (src/server/flowcontrol/controller.ts):
// classification by the bootstrap FlowSchemas, the levels' seat shares of
// 400 + 200, shuffle sharding, queues that fill (queue-full) and levels that
// reject, borrowing of idle lendable seats, and fair dispatch: a flow that
// floods its level does not keep another flow waiting behind its whole backlog.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FlowController, isTicket, type Ticket, type Rejection } from '../../src/server/flowcontrol/controller.js';
import type { RequestDigest } from '../../src/server/flowcontrol/matching.js';
import { dealHand, flowHash } from '../../src/server/flowcontrol/shuffle-sharding.js';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS } from '../../src/api/flowcontrol/v1/bootstrap.js';
import type { FlowSchema, PriorityLevelConfiguration } from '../../src/api/flowcontrol/v1/types.js';

const digest = (over: Partial<RequestDigest>): RequestDigest => ({
  user: 'alice',
  groups: ['system:authenticated'],
  isResourceRequest: true,
  verb: 'get',
  apiGroup: '',
  resource: 'configmaps',
  subresource: '',
  namespace: 'default',
  path: '/api/v1/namespaces/default/configmaps/a',
  ...over,
});

function bootstrapped(options: ConstructorParameters<typeof FlowController>[0] = {}): FlowController {
  const fc = new FlowController(options);
  fc.configure([...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS], [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS]);
  return fc;
}

function queuedLevel(name: string, shares: number, queues: number, handSize: number, queueLengthLimit: number, extra: Record<string, number> = {}): PriorityLevelConfiguration {
  return { metadata: { name, uid: `uid-${name}` }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, lendablePercent: 0, ...extra, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit } } } } };
}

function schemaFor(name: string, level: string, precedence: number, distinguisher?: 'ByUser' | 'ByNamespace'): FlowSchema {
  const fs: FlowSchema = {
    metadata: { name, uid: `uid-${name}` },
    spec: {
      priorityLevelConfiguration: { name: level },
      matchingPrecedence: precedence,
      rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:authenticated' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }] }],
    },
  };
  if (distinguisher !== undefined) fs.spec.distinguisherMethod = { type: distinguisher };
  return fs;
}

describe('classification', () => {
  const fc = bootstrapped();
  const cases: Array<[string, Partial<RequestDigest>, string, string]> = [
    ['system:masters is exempt', { user: 'admin', groups: ['system:masters', 'system:authenticated'] }, 'exempt', 'exempt'],
    ['probes are exempt', { isResourceRequest: false, verb: 'get', path: '/readyz', user: 'system:anonymous', groups: ['system:unauthenticated'] }, 'probes', 'exempt'],
    ['a node', { user: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'], resource: 'pods' }, 'system-nodes', 'system'],
    ['a node updating its status', { user: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'], resource: 'nodes', subresource: 'status', namespace: '', verb: 'update' }, 'system-node-high', 'node-high'],
    ['the scheduler', { user: 'system:kube-scheduler', resource: 'pods' }, 'kube-scheduler', 'workload-high'],
    ['a kube-system service account', { user: 'system:serviceaccount:kube-system:foo', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'], resource: 'pods' }, 'kube-system-service-accounts', 'workload-high'],
    ['leader election', { user: 'system:kube-controller-manager', apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-system', verb: 'update' }, 'system-leader-election', 'leader-election'],
    ['any service account', { user: 'system:serviceaccount:team:app', groups: ['system:serviceaccounts', 'system:authenticated'] }, 'service-accounts', 'workload-low'],
    ['everybody else', {}, 'global-default', 'global-default'],
    ['anonymous', { user: 'system:anonymous', groups: ['system:unauthenticated'] }, 'global-default', 'global-default'],
  ];
  for (const [name, d, fs, pl] of cases) {
    test(name, () => {
      const c = fc.classify(digest(d));
      assert.equal(c.flowSchema.metadata.name, fs);
      assert.equal(c.level.config.name, pl);
    });
  }
  test('catch-all when nothing else is configured; flows by user', () => {
    const bare = new FlowController();
    const c = bare.classify(digest({}));
    assert.equal(c.flowSchema.metadata.name, 'catch-all');
    assert.equal(c.flowKey, 'catch-all,alice');
  });
  test('a schema whose level does not exist matches nothing', () => {
    const f = bootstrapped();
    f.configure([...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS, schemaFor('mine', 'missing', 50)], [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS]);
    assert.equal(f.classify(digest({})).flowSchema.metadata.name, 'global-default');
  });
});

test('nominal seats are shares of 400 + 200, as kube-apiserver 1.32 computes them', () => {
  const fc = bootstrapped();
  const nominal = Object.fromEntries(fc.priorityLevels().map((l) => [l.config.name, l.config.limits.nominal]));
  // Σ shares = 0 + 5 + 30 + 40 + 10 + 40 + 100 + 20 = 245
  assert.deepEqual(nominal, { 'catch-all': 13, exempt: 0, system: 74, 'node-high': 98, 'leader-election': 25, 'workload-high': 98, 'workload-low': 245, 'global-default': 49 });
});

test('shuffle sharding deals distinct queues, the same hand for the same flow', () => {
  for (const key of ['a', 'global-default,alice', 'x'.repeat(300)]) {
    const hand = dealHand(flowHash(key), 128, 6);
    assert.equal(new Set(hand).size, 6);
    assert.ok(hand.every((q) => q >= 0 && q < 128));
    assert.deepEqual(dealHand(flowHash(key), 128, 6), hand);
  }
  assert.notDeepEqual(dealHand(flowHash('global-default,alice'), 128, 6), dealHand(flowHash('global-default,bob'), 128, 6));
});

function setup(levels: PriorityLevelConfiguration[], schemas: FlowSchema[], serverLimit: number): FlowController {
  const fc = new FlowController({ maxRequestsInflight: serverLimit, maxMutatingRequestsInflight: 0, queueWaitLimitMs: 60_000 });
  fc.configure(schemas, levels);
  return fc;
}

test('a full queue rejects (queue-full); a Reject level rejects at once', async () => {
  // One seat, one queue of two: the third and later requests of the flow are refused.
  const fc = setup([queuedLevel('one', 1000, 1, 1, 2)], [schemaFor('one', 'one', 100)], 1);
  const c = fc.classify(digest({}));
  assert.equal(c.level.config.limits.nominal, 1);
  const first = fc.admit(c, 1);
  assert.ok(!(first instanceof Promise) && isTicket(first));
  const waiting = [fc.admit(c, 1), fc.admit(c, 1)];
  assert.ok(waiting.every((w) => w instanceof Promise));
  const refused = fc.admit(c, 1);
  assert.ok(!(refused instanceof Promise) && !isTicket(refused));
  assert.equal((refused as Rejection).reason, 'queue-full');
  (first as Ticket).release();
  const second = (await waiting[0]) as Ticket;
  assert.ok(isTicket(second));
  second.release();
  ((await waiting[1]) as Ticket).release();
  assert.equal(c.level.seatsInUse, 0);

  const rejecting = new FlowController({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 0 });
  const held = rejecting.admit(rejecting.classify(digest({})), 1) as Ticket; // catch-all: Reject
  const r = rejecting.admit(rejecting.classify(digest({ user: 'bob' })), 1);
  assert.equal((r as Rejection).reason, 'concurrency-limit');
  held.release();
});

test('a waiting request is refused once its wait limit passes (time-out)', async () => {
  const fc = new FlowController({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 0, queueWaitLimitMs: 50 });
  fc.configure([schemaFor('one', 'one', 100)], [queuedLevel('one', 1000, 4, 2, 10)]);
  const c = fc.classify(digest({}));
  const held = fc.admit(c, 1) as Ticket;
  const waited = await fc.admit(c, 1);
  assert.equal((waited as Rejection).reason, 'time-out');
  held.release();
});

test('a flood from one flow does not keep another flow behind its backlog', async () => {
  // Two seats; flows by user. Alice fills the level and queues 40 more; Bob's one request
  // must start within the next few completions, not after Alice's 40.
  const fc = setup([queuedLevel('shared', 1000, 64, 4, 50)], [schemaFor('shared', 'shared', 100, 'ByUser')], 2);
  const alice = fc.classify(digest({ user: 'alice' }));
  const bob = fc.classify(digest({ user: 'bob' }));
  const running: Ticket[] = [fc.admit(alice, 1) as Ticket, fc.admit(alice, 1) as Ticket];
  const aliceWaiting = Array.from({ length: 40 }, () => fc.admit(alice, 1) as Promise<Ticket | Rejection>);
  const order: string[] = [];
  aliceWaiting.forEach((p) => void p.then((t) => { order.push('alice'); running.push(t as Ticket); }));
  const bobDone = (fc.admit(bob, 1) as Promise<Ticket | Rejection>).then((t) => { order.push('bob'); running.push(t as Ticket); });
  for (let i = 0; i < 6 && !order.includes('bob'); i++) {
    running.shift()!.release();
    await new Promise((r) => setImmediate(r));
  }
  await Promise.race([bobDone, new Promise((r) => setTimeout(r, 100))]);
  const bobAt = order.indexOf('bob');
  assert.ok(bobAt >= 0 && bobAt <= 2, `bob started after ${bobAt} of alice's queued requests (order: ${order.join(',')})`);
  // Drain.
  while (running.length > 0 || order.length < 41) {
    running.shift()?.release();
    await new Promise((r) => setImmediate(r));
  }
});

test('a busy level borrows the idle lendable seats of others, up to its borrowing limit', () => {
  const lender = queuedLevel('lender', 50, 8, 2, 10, { lendablePercent: 100 });
  const borrower = queuedLevel('borrower', 50, 8, 2, 10, { lendablePercent: 0, borrowingLimitPercent: 50 });
  const schemas = [schemaFor('borrower', 'borrower', 100)];
  // 20 seats: catch-all shares 5 of 105 → 1; lender and borrower 50 each → 10.
  const fc = setup([lender, borrower], schemas, 20);
  const c = fc.classify(digest({}));
  assert.equal(c.level.config.limits.nominal, 10);
  assert.equal(c.level.config.limits.max, 15);
  const tickets: Ticket[] = [];
  for (let i = 0; i < 15; i++) {
    const t = fc.admit(c, 1);
    assert.ok(!(t instanceof Promise) && isTicket(t), `request ${i} should run at once`);
    tickets.push(t);
  }
  const sixteenth = fc.admit(c, 1);
  assert.ok(sixteenth instanceof Promise, 'beyond the borrowing limit the request waits');
  for (const t of tickets) t.release();
  return sixteenth.then((t) => (t as Ticket).release());
});

test('classification is remembered per request key, by user and groups, and forgotten with the configuration', () => {
  const fc = bootstrapped();
  const info = { isResourceRequest: true, verb: 'get', apiGroup: '', resource: 'configmaps', subresource: '', namespace: 'default', path: '/api/v1/namespaces/default/configmaps/a' };
  const first = fc.classifyRequest('alice', ['system:authenticated'], info);
  assert.equal(first.flowSchema.metadata.name, 'global-default');
  assert.equal(fc.classifyRequest('alice', ['system:authenticated'], info), first);
  // The same name in other groups is another key (impersonation may change the groups).
  assert.equal(fc.classifyRequest('alice', ['system:masters', 'system:authenticated'], info).flowSchema.metadata.name, 'exempt');
  assert.equal(fc.classifyRequest('alice', ['system:authenticated'], { ...info, isResourceRequest: false, resource: '', namespace: '', path: '/healthz' }).flowSchema.metadata.name, 'probes');
  // A new schema that matches alice first: the remembered answer goes with the old configuration.
  fc.configure([...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS, schemaFor('mine', 'workload-low', 50)], [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS]);
  const after = fc.classifyRequest('alice', ['system:authenticated'], info);
  assert.equal(after.flowSchema.metadata.name, 'mine');
  assert.equal(after.level.config.name, 'workload-low');
});
