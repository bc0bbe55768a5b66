// DefaultStorageClass and PersistentVolumeClaimResize through a real server.
// A default StorageClass is cluster-wide, so this part is not a differential
// case (the cases run in parallel); cases/admission-plugins.ts holds the rest.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { request } from '../helpers/http.js';

const SC = '/apis/storage.k8s.io/v1/storageclasses';
const sc = (name: string, isDefault: boolean, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name, ...(isDefault ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}) },
  provisioner: 'example.com/p',
  ...extra,
});
const pvc = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});

test('DefaultStorageClass: claims without a class get the default one, the newest when several', async (t) => {
  const server = await startTestServer();
  t.after(() => server.stop());
  const base = server.url;
  const PVCS = '/api/v1/namespaces/a/persistentvolumeclaims';
  await request(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } } });
  const none = await request(base, 'POST', PVCS, { body: pvc('none') });
  assert.equal(none.status, 201, none.text);
  assert.equal(none.json.spec.storageClassName, undefined, 'no default class: left as sent');

  assert.equal((await request(base, 'POST', SC, { body: sc('old', true) })).status, 201);
  assert.equal((await request(base, 'POST', SC, { body: sc('plain', false) })).status, 201);
  const waitFor = async (want: string, n: string) => {
    // The plugin reads the watch cache: allow it a moment.
    for (let i = 0; ; i++) {
      const r = await request(base, 'POST', `${PVCS}?dryRun=All`, { body: pvc(n) });
      assert.equal(r.status, 201, r.text);
      if (r.json.spec.storageClassName === want || i > 50) return r;
      await new Promise((res) => setTimeout(res, 20));
    }
  };
  assert.equal((await waitFor('old', 'probe')).json.spec.storageClassName, 'old');
  const got = await request(base, 'POST', PVCS, { body: pvc('got') });
  assert.equal(got.json.spec.storageClassName, 'old');
  assert.equal((await request(base, 'GET', `${PVCS}/got`)).json.spec.storageClassName, 'old', 'stored');
  const empty = await request(base, 'POST', PVCS, { body: pvc('empty', { storageClassName: '' }) });
  assert.equal(empty.json.spec.storageClassName, '', '"" asks for no class and is kept');
  const own = await request(base, 'POST', PVCS, { body: pvc('own', { storageClassName: 'plain' }) });
  assert.equal(own.json.spec.storageClassName, 'plain');
  const beta = await request(base, 'POST', PVCS, {
    body: { ...pvc('beta'), metadata: { name: 'beta', annotations: { 'volume.beta.kubernetes.io/storage-class': 'plain' } } },
  });
  assert.equal(beta.json.spec.storageClassName, undefined, 'the beta annotation names a class');

  // creationTimestamp has one-second resolution: the newer class must be a second younger.
  await new Promise((res) => setTimeout(res, 1100));
  assert.equal((await request(base, 'POST', SC, { body: sc('new', true) })).status, 201);
  assert.equal((await waitFor('new', 'probe2')).json.spec.storageClassName, 'new', 'the newest default wins');
});

test('--disable-admission-plugins DefaultStorageClass leaves claims without a class', async (t) => {
  const server = await startTestServer({ disableAdmissionPlugins: ['DefaultStorageClass'] });
  t.after(() => server.stop());
  await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } } });
  assert.equal((await request(server.url, 'POST', SC, { body: sc('d', true) })).status, 201);
  await new Promise((res) => setTimeout(res, 200));
  const r = await request(server.url, 'POST', '/api/v1/namespaces/a/persistentvolumeclaims', { body: pvc('x') });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.json.spec.storageClassName, undefined);
});

test('PersistentVolumeClaimResize: a bound claim grows only when its StorageClass allows expansion', async (t) => {
  const server = await startTestServer();
  t.after(() => server.stop());
  const base = server.url;
  const PVCS = '/api/v1/namespaces/a/persistentvolumeclaims';
  await request(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } } });
  assert.equal((await request(base, 'POST', SC, { body: sc('fixed', false) })).status, 201);
  assert.equal((await request(base, 'POST', SC, { body: sc('grows', false, { allowVolumeExpansion: true }) })).status, 201);
  const merge = { 'content-type': 'application/merge-patch+json' };
  const bound = async (name: string, cls: string) => {
    assert.equal((await request(base, 'POST', PVCS, { body: pvc(name, { storageClassName: cls }) })).status, 201);
    const st = await request(base, 'PATCH', `${PVCS}/${name}/status`, { body: { status: { phase: 'Bound' } }, headers: merge });
    assert.equal(st.status, 200, st.text);
  };
  const grow = (name: string, size: string) =>
    request(base, 'PATCH', `${PVCS}/${name}`, { body: { spec: { resources: { requests: { storage: size } } } }, headers: merge });
  await bound('f', 'fixed');
  await bound('g', 'grows');
  await new Promise((res) => setTimeout(res, 100)); // the classes reach the watch cache

  const refused = await grow('f', '2Gi');
  assert.equal(refused.status, 403, refused.text);
  assert.equal(
    refused.json.message,
    'persistentvolumeclaims "f" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
  );
  assert.equal((await request(base, 'GET', `${PVCS}/f`)).json.spec.resources.requests.storage, '1Gi', 'nothing stored');
  const same = await grow('f', '1024Mi');
  assert.equal(same.status, 200, 'the same size written another way is no growth');
  const ok = await grow('g', '2Gi');
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.json.spec.resources.requests.storage, '2Gi');
});
