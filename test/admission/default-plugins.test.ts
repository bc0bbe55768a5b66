// The small mutating plugins of kube-apiserver's default set, through a real
// server: DefaultTolerationSeconds on pods, TaintNodesByCondition on nodes,
// and --disable-admission-plugins turning each off. (The differential case
// admission-defaults.ts compares the same answers with kube-apiserver's.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { request } from '../helpers/http.js';

const pod = (name: string, tolerations?: unknown[]) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'busybox' }], ...(tolerations ? { tolerations } : {}) },
});

test('DefaultTolerationSeconds and TaintNodesByCondition mutate what is stored, and can be disabled', async (t) => {
  const server = await startTestServer();
  t.after(() => server.stop());
  const base = server.url;
  await request(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } } });

  const bare = await request(base, 'POST', '/api/v1/namespaces/a/pods', { body: pod('bare') });
  assert.equal(bare.status, 201, bare.text);
  assert.deepEqual(bare.json.spec.tolerations, [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ]);
  const stored = await request(base, 'GET', '/api/v1/namespaces/a/pods/bare');
  assert.deepEqual(stored.json.spec.tolerations, bare.json.spec.tolerations, 'stored as answered');

  const own = await request(base, 'POST', '/api/v1/namespaces/a/pods', {
    body: pod('own', [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }]),
  });
  assert.deepEqual(own.json.spec.tolerations, [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ]);
  const all = await request(base, 'POST', '/api/v1/namespaces/a/pods', { body: pod('all', [{ operator: 'Exists' }]) });
  assert.deepEqual(all.json.spec.tolerations, [{ operator: 'Exists' }], 'an empty key tolerates every taint');

  const node = await request(base, 'POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } } });
  assert.equal(node.status, 201, node.text);
  assert.deepEqual(node.json.spec.taints, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
  const cleared = await request(base, 'PATCH', '/api/v1/nodes/n1', {
    body: { spec: { taints: null } },
    headers: { 'content-type': 'application/merge-patch+json' },
  });
  assert.equal(cleared.status, 200, cleared.text);
  assert.equal(cleared.json.spec.taints, undefined, 'an update does not add the taint back');
});

test('--disable-admission-plugins DefaultTolerationSeconds,TaintNodesByCondition leaves pods and nodes as sent', async (t) => {
  const server = await startTestServer({ disableAdmissionPlugins: ['DefaultTolerationSeconds', 'TaintNodesByCondition'] });
  t.after(() => server.stop());
  await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } } });
  const created = await request(server.url, 'POST', '/api/v1/namespaces/a/pods', { body: pod('bare') });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.spec.tolerations, undefined);
  const node = await request(server.url, 'POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } } });
  assert.equal(node.json.spec?.taints, undefined);
});

test('Priority: a global default class is given to pods without one; a second default is refused', async (t) => {
  const server = await startTestServer();
  t.after(() => server.stop());
  const base = server.url;
  await request(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } } });
  const PCS = '/apis/scheduling.k8s.io/v1/priorityclasses';
  const plain = await request(base, 'POST', '/api/v1/namespaces/a/pods', { body: pod('before') });
  assert.deepEqual([plain.json.spec.priority, plain.json.spec.preemptionPolicy, plain.json.spec.priorityClassName], [0, 'PreemptLowerPriority', undefined]);
  const def = await request(base, 'POST', PCS, {
    body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'low' }, value: 7, globalDefault: true, preemptionPolicy: 'Never' },
  });
  assert.equal(def.status, 201, def.text);
  const second = await request(base, 'POST', PCS, { body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'other' }, value: 8, globalDefault: true } });
  assert.equal(second.status, 403);
  assert.equal(second.json.message, 'priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass low is already marked as default. Only one default can exist');
  // The plugin reads the watch cache: the new class shows within moments.
  let after: Awaited<ReturnType<typeof request>> | undefined;
  for (let i = 0; i < 50; i++) {
    after = await request(base, 'POST', '/api/v1/namespaces/a/pods?dryRun=All', { body: pod('after') });
    if (after.json.spec?.priorityClassName === 'low') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual([after!.json.spec.priority, after!.json.spec.preemptionPolicy, after!.json.spec.priorityClassName], [7, 'Never', 'low']);
  const unknown = await request(base, 'POST', '/api/v1/namespaces/a/pods', { body: { ...pod('x'), spec: { ...pod('x').spec, priorityClassName: 'nope' } } });
  assert.equal(unknown.status, 403);
  assert.equal(unknown.json.message, 'pods "x" is forbidden: no PriorityClass with name nope was found');
});
