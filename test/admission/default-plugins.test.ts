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
