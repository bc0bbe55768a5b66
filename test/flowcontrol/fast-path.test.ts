// What the per-request fast path of priority and fairness keeps (controller.ts,
// loop-limit.ts): the classification memo answers every key as a fresh
// classification would (users, groups, verbs, resources, namespaces,
// non-resource paths, a configuration change); the loop is sampled for the
// dispatch limit only while a flow is active; a ticket reports
// its execution time by the controller's clock, once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlowController, type Ticket } from '../../src/server/flowcontrol/controller.js';
import { LoopLimit, type DelaySource } from '../../src/server/flowcontrol/loop-limit.js';
import type { RequestDigest } from '../../src/server/flowcontrol/matching.js';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS } from '../../src/api/flowcontrol/v1/bootstrap.js';
import type { FlowSchema } from '../../src/api/flowcontrol/v1/types.js';

const ALL_SCHEMAS = [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS];
const ALL_LEVELS = [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS];

function digest(d: Partial<RequestDigest>): RequestDigest {
  return { user: 'alice', groups: ['system:authenticated'], isResourceRequest: true, verb: 'get', apiGroup: '', resource: 'configmaps', subresource: '', namespace: 'default', path: '/api/v1/namespaces/default/configmaps/x', ...d };
}

test('the classification memo answers as classify() does, for every part of the key', () => {
  const fc = new FlowController();
  fc.configure(ALL_SCHEMAS, ALL_LEVELS);
  const reference = new FlowController();
  reference.configure(ALL_SCHEMAS, ALL_LEVELS);
  const cases: RequestDigest[] = [
    digest({}),
    digest({ user: 'system:kube-controller-manager' }),
    digest({ user: 'system:kube-scheduler', verb: 'create', resource: 'bindings', subresource: '', namespace: 'default' }),
    digest({ user: 'system:serviceaccount:kube-system:generic-garbage-collector' }),
    digest({ user: 'system:serviceaccount:kube-system:generic-garbage-collector', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] }),
    digest({ user: 'admin', groups: ['system:masters', 'system:authenticated'] }),
    digest({ user: 'admin', groups: ['system:authenticated', 'system:masters'] }),
    digest({ user: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'], verb: 'update', resource: 'nodes', subresource: 'status', namespace: '' }),
    digest({ user: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'], verb: 'update', resource: 'leases', apiGroup: 'coordination.k8s.io', namespace: 'kube-node-lease' }),
    digest({ user: 'system:kube-controller-manager', verb: 'update', apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-system' }),
    digest({ user: 'system:kube-controller-manager', verb: 'update', apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'default' }),
    digest({ user: 'system:anonymous', groups: ['system:unauthenticated'], isResourceRequest: false, verb: 'get', apiGroup: '', resource: '', namespace: '', path: '/healthz' }),
    digest({ user: 'system:anonymous', groups: ['system:unauthenticated'], isResourceRequest: false, verb: 'get', apiGroup: '', resource: '', namespace: '', path: '/version' }),
    digest({ user: 'alice', isResourceRequest: false, verb: 'get', apiGroup: '', resource: '', namespace: '', path: '/readyz' }),
    digest({ user: 'alice', isResourceRequest: false, verb: 'get', apiGroup: '', resource: '', namespace: '', path: '/api' }),
    digest({ user: 'bob', groups: [] }),
    digest({ user: 'bob', groups: ['a\u0001b'] }),
    digest({ user: 'bob', groups: ['a', 'b'] }),
    // Group names that would collide in a joined key.
    digest({ user: 'bob', groups: ['system:masters\u0001x'] }),
    digest({ user: 'bob', groups: ['system:masters', 'x'] }),
    digest({ user: 'bob', groups: ['["system:masters","x"]'] }),
  ];
  // Twice over (the second time from the memo), and interleaved so that neighbouring keys differ in one part.
  for (let round = 0; round < 2; round++) {
    for (const d of cases) {
      const got = fc.classifyRequest(d.user, d.groups, d);
      const want = reference.classify(d);
      const what = `${d.user} ${d.groups.join(',')} ${d.verb} ${d.isResourceRequest ? `${d.apiGroup}/${d.resource}/${d.subresource} in ${d.namespace}` : d.path}`;
      assert.equal(got.flowSchema.metadata.name, want.flowSchema.metadata.name, what);
      assert.equal(got.level.config.name, want.level.config.name, what);
      assert.equal(got.flowKey, want.flowKey, what);
    }
  }
  assert.equal(fc.classifyRequest('alice', ['system:authenticated'], digest({})), fc.classifyRequest('alice', ['system:authenticated'], digest({})), 'one classification per key');
});

test('the classification memo stays right past its bound (it starts over)', () => {
  const fc = new FlowController();
  fc.configure(ALL_SCHEMAS, ALL_LEVELS);
  for (let i = 0; i < 12_000; i++) {
    const user = i % 2 === 0 ? 'system:kube-controller-manager' : `user-${i}`;
    const d = digest({ user, namespace: `ns-${i}` });
    const c = fc.classifyRequest(d.user, d.groups, d);
    assert.equal(c.flowSchema.metadata.name, i % 2 === 0 ? 'kube-controller-manager' : 'global-default', `request ${i}`);
  }
  const d = digest({ user: 'system:kube-controller-manager', namespace: 'ns-0' });
  assert.equal(fc.classifyRequest(d.user, d.groups, d).flowSchema.metadata.name, 'kube-controller-manager');
});

test('the classification memo starts over with a new configuration', () => {
  const fc = new FlowController();
  fc.configure(ALL_SCHEMAS, ALL_LEVELS);
  const d = digest({ user: 'carol' });
  assert.equal(fc.classifyRequest(d.user, d.groups, d).flowSchema.metadata.name, 'global-default');
  const carol: FlowSchema = {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: { name: 'carol', uid: 'carol-uid' },
    spec: {
      priorityLevelConfiguration: { name: 'workload-low' },
      matchingPrecedence: 500,
      distinguisherMethod: { type: 'ByUser' },
      rules: [{ subjects: [{ kind: 'User', user: { name: 'carol' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] }],
    },
  };
  fc.configure([...ALL_SCHEMAS, carol], ALL_LEVELS);
  const c = fc.classifyRequest(d.user, d.groups, d);
  assert.equal(c.flowSchema.metadata.name, 'carol');
  assert.equal(c.level.config.name, 'workload-low');
});

/** A delay source that counts how many were made and are running. */
function countingSources(): { make: () => DelaySource; made: number; running: number } {
  const state = {
    made: 0,
    running: 0,
    make: (): DelaySource => {
      state.made++;
      state.running++;
      let stopped = false;
      return {
        read: () => ({ delayMs: 0, utilization: 0 }),
        stop: () => {
          if (!stopped) state.running--;
          stopped = true;
        },
      };
    },
  };
  return state;
}

test('the loop is sampled for the dispatch limit only while two flows are active; alone, a flow finds the limit back at its initial value', async () => {
  const limit = new LoopLimit({ min: 2, initial: 4, windowMs: 10 });
  let clock = 0;
  const fc = new FlowController({ loopLimit: limit, queueWaitLimitMs: 60_000, monotonic: () => clock });
  fc.configure(ALL_SCHEMAS, ALL_LEVELS);
  const sources = countingSources();
  limit.start(sources.make);
  try {
    const alice = fc.classify(digest({ user: 'alice' }));
    const bob = fc.classify(digest({ user: 'bob' }));
    assert.equal(sources.made, 0, 'idle: the loop is not sampled');
    // Request after request of one client: nobody to be fair to, nothing sampled.
    for (let i = 0; i < 50; i++) (fc.admit(alice, 1) as Ticket).release();
    assert.equal(sources.made, 0, 'one flow: the loop is not sampled');
    const a = fc.admit(alice, 1) as Ticket;
    const b = fc.admit(bob, 1) as Ticket;
    assert.equal(sources.running, 1, 'two flows active: the loop is sampled');
    assert.equal(sources.made, 1, 'one sampler however many flows');
    // Their load shrinks the limit; once one flow is left it goes back to the initial 4.
    limit.observe({ delayMs: 50, utilization: 1 });
    assert.equal(limit.limit, 2);
    b.release();
    clock += 1000;
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(sources.running, 0, 'one flow left: sampling stopped');
    assert.equal(limit.limit, 4, 'alone, the limit is back at its initial value');
    a.release();
    const again = fc.admit(bob, 1) as Ticket;
    const other = fc.admit(alice, 1) as Ticket;
    assert.equal(sources.running, 1, 'two active again: sampled again');
    assert.equal(sources.made, 2);
    again.release();
    other.release();
  } finally {
    limit.stop();
  }
  assert.equal(sources.running, 0, 'stop() ends sampling');
});

test('a ticket reports its execution time by the controller\'s clock, once', () => {
  let clock = 1000;
  const fc = new FlowController({ monotonic: () => clock });
  fc.configure(ALL_SCHEMAS, ALL_LEVELS);
  const c = fc.classify(digest({}));
  const t = fc.admit(c, 1) as Ticket;
  assert.equal(c.level.seatsInUse, 1);
  clock += 250;
  assert.equal(t.finish(), 0.25);
  assert.equal(c.level.seatsInUse, 0);
  assert.equal(t.finish(), 0, 'released once');
  t.release();
  assert.equal(c.level.seatsInUse, 0);
  assert.equal(c.level.executing, 0);
});
