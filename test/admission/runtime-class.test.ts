// RuntimeClass admission through a real server (cases/admission-plugins.ts
// compares the same answers with kube-apiserver's).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { request } from '../helpers/http.js';

const pod = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec },
});

test('RuntimeClass: overhead and scheduling from the class; mismatches and missing classes are refused', async (t) => {
  const server = await startTestServer();
  t.after(() => server.stop());
  const base = server.url;
  const PODS = '/api/v1/namespaces/a/pods';
  await request(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } } });
  const rc = await request(base, 'POST', '/apis/node.k8s.io/v1/runtimeclasses', {
    body: {
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: 'kata' },
      handler: 'kata',
      overhead: { podFixed: { cpu: '250m' } },
      scheduling: { nodeSelector: { runtime: 'kata' }, tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }] },
    },
  });
  assert.equal(rc.status, 201, rc.text);

  // Created right after the class: the plugin falls back to a live read when the cache lags.
  const ok = await request(base, 'POST', PODS, {
    body: pod('ok', { runtimeClassName: 'kata', nodeSelector: { zone: 'z' }, tolerations: [{ key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' }] }),
  });
  assert.equal(ok.status, 201, ok.text);
  assert.deepEqual(ok.json.spec.overhead, { cpu: '250m' });
  assert.deepEqual(ok.json.spec.nodeSelector, { zone: 'z', runtime: 'kata' });
  assert.deepEqual(
    ok.json.spec.tolerations.filter((x: { key?: string }) => x.key === 'k'),
    [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
    'the class toleration covers the pod one, which is dropped',
  );

  const missing = await request(base, 'POST', PODS, { body: pod('m', { runtimeClassName: 'nope' }) });
  assert.equal(missing.status, 403);
  assert.equal(missing.json.message, 'pods "m" is forbidden: pod rejected: RuntimeClass "nope" not found');
  const differs = await request(base, 'POST', PODS, { body: pod('d', { runtimeClassName: 'kata', overhead: { cpu: '1' } }) });
  assert.equal(differs.status, 403);
  assert.equal(differs.json.message, `pods "d" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`);
  const conflict = await request(base, 'POST', PODS, { body: pod('c', { runtimeClassName: 'kata', nodeSelector: { runtime: 'runc' } }) });
  assert.equal(conflict.status, 403);
  assert.equal(conflict.json.message, 'pods "c" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[runtime] = kata; pod.spec.nodeSelector[runtime] = runc');
  const bare = await request(base, 'POST', PODS, { body: pod('b', { overhead: { cpu: '1' } }) });
  assert.equal(bare.status, 403);
  assert.equal(bare.json.message, 'pods "b" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
  assert.equal((await request(base, 'GET', `${PODS}/d`)).status, 404, 'nothing stored on a denial');
});
