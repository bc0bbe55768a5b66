// LimitRanger admission over HTTP: defaults for containers and init
// containers, min / max / maxLimitRequestRatio for Container, Pod and
// PersistentVolumeClaim items, with the messages kube-apiserver v1.32.4
// answers for the same LimitRange and objects.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from '../helpers/http.js';
import { container, createNamespace, pod, startQuotaCluster, type QuotaCluster } from './helpers.js';

let c: QuotaCluster;
before(async () => {
  c = await startQuotaCluster({ controller: false });
  await createNamespace(c.server.url, 'lr');
  const created = await c.post('/api/v1/namespaces/lr/limitranges', {
    metadata: { name: 'lr' },
    spec: {
      limits: [
        {
          type: 'Container',
          default: { cpu: '500m', memory: '256Mi' },
          defaultRequest: { cpu: '100m' },
          max: { cpu: '1' },
          min: { cpu: '50m' },
          maxLimitRequestRatio: { cpu: '5' },
        },
        { type: 'Pod', max: { memory: '1Gi' } },
        { type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '5Gi' } },
      ],
    },
  });
  assert.equal(created.status, 201, created.text);
  // The LimitRange's own defaulting, as upstream stores it.
  assert.deepEqual(created.json.spec.limits[0].defaultRequest, { cpu: '100m', memory: '256Mi' });
});
after(async () => {
  await c?.stop();
});

describe('LimitRanger', () => {
  test('defaults fill containers and init containers that omit them, and say so in an annotation', async () => {
    const r = await c.post('/api/v1/namespaces/lr/pods', pod('d', [container('main'), container('partial', { cpu: '200m' })], { initContainers: [container('init')] }));
    assert.equal(r.status, 201, r.text);
    const [main, partial] = r.json.spec.containers;
    assert.deepEqual(main.resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '256Mi' } });
    assert.deepEqual(partial.resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '200m', memory: '256Mi' } });
    assert.deepEqual(r.json.spec.initContainers[0].resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '256Mi' } });
    assert.equal(
      r.json.metadata.annotations['kubernetes.io/limit-ranger'],
      'LimitRanger plugin set: cpu, memory request for container main; cpu, memory limit for container main; memory request for container partial; cpu, memory limit for container partial; cpu, memory request for init container init; cpu, memory limit for init container init',
    );
    assert.equal(r.json.status.qosClass, 'Burstable');
  });

  test('every violation of Container and Pod items in one 403, duplicates once', async () => {
    const r = await c.post(
      '/api/v1/namespaces/lr/pods',
      pod('bad', [container('c1', { cpu: '10m', memory: '2Gi' }, { cpu: '2', memory: '2Gi' })], {
        initContainers: [container('i1', { cpu: '10m' }, { cpu: '2' })],
      }),
    );
    assert.equal(r.status, 403);
    assert.equal(
      r.json.message,
      'pods "bad" is forbidden: [minimum cpu usage per Container is 50m, but request is 10m, maximum cpu usage per Container is 1, but limit is 2, cpu max limit to request ratio per Container is 5, but provided ratio is 200.000000, maximum memory usage per Pod is 1Gi, but limit is 2Gi]',
    );
  });

  test('PersistentVolumeClaim min and max, on create and update', async () => {
    const pvc = (name: string, storage: string) => ({ metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } } });
    const small = await c.post('/api/v1/namespaces/lr/persistentvolumeclaims', pvc('small', '100Mi'));
    assert.equal(small.status, 403);
    assert.equal(small.json.message, 'persistentvolumeclaims "small" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 100Mi');
    const big = await c.post('/api/v1/namespaces/lr/persistentvolumeclaims', pvc('bigger', '10Gi'));
    assert.equal(big.json.message, 'persistentvolumeclaims "bigger" is forbidden: maximum storage usage per PersistentVolumeClaim is 5Gi, but request is 10Gi');
    assert.equal((await c.post('/api/v1/namespaces/lr/persistentvolumeclaims', pvc('ok', '2Gi'))).status, 201);
    const current = (await request(c.server.url, 'GET', '/api/v1/namespaces/lr/persistentvolumeclaims/ok')).json;
    current.status = { phase: 'Bound' };
    assert.equal((await request(c.server.url, 'PUT', '/api/v1/namespaces/lr/persistentvolumeclaims/ok/status', { body: current })).status, 200);
    const grown = (await request(c.server.url, 'GET', '/api/v1/namespaces/lr/persistentvolumeclaims/ok')).json;
    grown.spec.resources.requests.storage = '6Gi';
    const r = await request(c.server.url, 'PUT', '/api/v1/namespaces/lr/persistentvolumeclaims/ok', { body: grown });
    assert.equal(r.status, 403);
    assert.equal(r.json.message, 'persistentvolumeclaims "ok" is forbidden: maximum storage usage per PersistentVolumeClaim is 5Gi, but request is 6Gi');
  });

  test('a LimitRange created a moment ago applies at once', async () => {
    await createNamespace(c.server.url, 'fresh');
    await c.post('/api/v1/namespaces/fresh/limitranges', { metadata: { name: 'x' }, spec: { limits: [{ type: 'Container', max: { memory: '1Mi' } }] } });
    const r = await c.post('/api/v1/namespaces/fresh/pods', pod('p', [container('c', undefined, { memory: '2Mi' })]));
    assert.equal(r.status, 403);
    assert.equal(r.json.message, 'pods "p" is forbidden: maximum memory usage per Container is 1Mi, but limit is 2Mi');
    // Without resources the defaults (max, as the LimitRange's defaulting copies it) fit.
    const defaulted = await c.post('/api/v1/namespaces/fresh/pods', pod('q', [container('c')]));
    assert.equal(defaulted.status, 201, defaulted.text);
    assert.deepEqual(defaulted.json.spec.containers[0].resources, { limits: { memory: '1Mi' }, requests: { memory: '1Mi' } });
  });
});
