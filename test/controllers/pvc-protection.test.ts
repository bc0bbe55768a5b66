// PVC protection end to end: the StorageObjectInUseProtection admission
// plugin puts kubernetes.io/pvc-protection on every new claim, and the
// pvc-protection controller (a client of the API beside the server, as
// `apiary serve` runs it) lets a deleted claim go only once no scheduled pod
// uses it. Driven with real kubectl 1.32.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { RestClient } from '../../src/client/index.js';
import { type RunningControllerManager, startControllerManager } from '../../src/controllers/manager.js';
import { request } from '../helpers/http.js';
import { runKubectl } from '../helpers/kubectl.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

let server: TestServer;
let client: RestClient;
let controllers: RunningControllerManager;
const kubectl = (args: string[], stdin?: string) => runKubectl(server.kubeconfigPath, args, stdin === undefined ? {} : { stdin });

before(async () => {
  server = await startTestServer();
  client = new RestClient({ server: server.url });
  controllers = startControllerManager({
    client,
    controllers: { namespace: false, systemNamespaces: false, resourceQuota: false, crdCleanup: false, pvcProtection: true },
  });
  assert.equal((await request(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'store' } } })).status, 201);
});
after(async () => {
  await controllers.stop();
  await client.close();
  await server.stop();
});

const claim = (name: string, finalizers?: string[]) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, ...(finalizers ? { finalizers } : {}) },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
});
const pod = (name: string, claimName: string, nodeName?: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    ...(nodeName ? { nodeName } : {}),
    containers: [{ name: 'c', image: 'busybox' }],
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }],
  },
});
const getClaim = (name: string) => request(server.url, 'GET', `/api/v1/namespaces/store/persistentvolumeclaims/${name}`);

test('a new claim gets the pvc-protection finalizer, after the ones the client set, once', async () => {
  const created = await request(server.url, 'POST', '/api/v1/namespaces/store/persistentvolumeclaims', { body: claim('plain') });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.json.metadata.finalizers, ['kubernetes.io/pvc-protection']);
  const own = await request(server.url, 'POST', '/api/v1/namespaces/store/persistentvolumeclaims?dryRun=All', { body: claim('own', ['example.com/keep']) });
  assert.deepEqual(own.json.metadata.finalizers, ['example.com/keep', 'kubernetes.io/pvc-protection']);
  const twice = await request(server.url, 'POST', '/api/v1/namespaces/store/persistentvolumeclaims?dryRun=All', { body: claim('twice', ['kubernetes.io/pvc-protection']) });
  assert.deepEqual(twice.json.metadata.finalizers, ['kubernetes.io/pvc-protection']);
  // updates may drop it (the controller adds it back while the claim is not being deleted)
  const cur = created.json;
  cur.metadata.finalizers = [];
  assert.equal((await request(server.url, 'PUT', '/api/v1/namespaces/store/persistentvolumeclaims/plain', { body: cur })).status, 200);
  await until('finalizer added back by the controller', async () => ((await getClaim('plain')).json.metadata.finalizers ?? []).includes('kubernetes.io/pvc-protection'));
});

test('kubectl delete of a claim a scheduled pod uses leaves it Terminating until the pod is deleted', async () => {
  assert.equal((await kubectl(['-n', 'store', 'apply', '-f', '-'], JSON.stringify(claim('data')))).code, 0);
  const made = await kubectl(['-n', 'store', 'apply', '-f', '-'], JSON.stringify(pod('user', 'data', 'node-1')));
  assert.equal(made.code, 0, made.stderr);
  const del = await kubectl(['-n', 'store', 'delete', 'pvc', 'data', '--wait=false']);
  assert.equal(del.code, 0, del.stderr);
  assert.match(del.stdout, /persistentvolumeclaim "data" deleted/);
  // the controller looks and keeps it: still there, Terminating, a while later
  await new Promise((r) => setTimeout(r, 1000));
  const held = await getClaim('data');
  assert.equal(held.status, 200);
  assert.ok(held.json.metadata.deletionTimestamp);
  assert.deepEqual(held.json.metadata.finalizers, ['kubernetes.io/pvc-protection']);
  const shown = await kubectl(['-n', 'store', 'get', 'pvc', 'data']);
  assert.match(shown.stdout, /data\s+Terminating/);
  // the pod goes: so does the claim
  // (a scheduled pod's deletion is graceful and waits for a kubelet; force it, as there is none)
  const gone = await kubectl(['-n', 'store', 'delete', 'pod', 'user', '--grace-period=0', '--force']);
  assert.equal(gone.code, 0, gone.stderr);
  await until('claim removed', async () => (await getClaim('data')).status === 404, 5000);
});

test('pods that are not scheduled, or use another claim, do not hold it; a pod created meanwhile does', async () => {
  assert.equal((await request(server.url, 'POST', '/api/v1/namespaces/store/persistentvolumeclaims', { body: claim('free') })).status, 201);
  assert.equal((await request(server.url, 'POST', '/api/v1/namespaces/store/pods', { body: pod('pending', 'free') })).status, 201);
  assert.equal((await request(server.url, 'POST', '/api/v1/namespaces/store/pods', { body: pod('other', 'elsewhere', 'node-1') })).status, 201);
  assert.equal((await request(server.url, 'DELETE', '/api/v1/namespaces/store/persistentvolumeclaims/free')).status, 200);
  await until('unused claim removed', async () => (await getClaim('free')).status === 404, 5000);

  assert.equal((await request(server.url, 'POST', '/api/v1/namespaces/store/persistentvolumeclaims', { body: claim('late') })).status, 201);
  assert.equal((await request(server.url, 'POST', '/api/v1/namespaces/store/pods', { body: pod('late-user', 'late', 'node-2') })).status, 201);
  assert.equal((await request(server.url, 'DELETE', '/api/v1/namespaces/store/persistentvolumeclaims/late')).status, 200);
  await new Promise((r) => setTimeout(r, 800));
  assert.equal((await getClaim('late')).status, 200);
  // a pod that finished still names it
  const user = (await request(server.url, 'GET', '/api/v1/namespaces/store/pods/late-user')).json;
  user.status = { phase: 'Succeeded' };
  assert.equal((await request(server.url, 'PUT', '/api/v1/namespaces/store/pods/late-user/status', { body: user })).status, 200);
  await new Promise((r) => setTimeout(r, 800));
  // upstream: a scheduled pod still names the claim, so it holds it until the pod object is gone
  assert.equal((await getClaim('late')).status, 200);
  assert.equal((await request(server.url, 'DELETE', '/api/v1/namespaces/store/pods/late-user')).status, 200);
  await until('claim removed after its pod', async () => (await getClaim('late')).status === 404, 5000);
});

test('an unused claim is gone right after its DELETE (the controller reacts to the watch event)', async () => {
  assert.equal((await request(server.url, 'POST', '/api/v1/namespaces/store/persistentvolumeclaims', { body: claim('quick') })).status, 201);
  const t0 = Date.now();
  const del = await request(server.url, 'DELETE', '/api/v1/namespaces/store/persistentvolumeclaims/quick');
  assert.equal(del.status, 200);
  assert.deepEqual(del.json.metadata.finalizers, ['kubernetes.io/pvc-protection']);
  await until('claim removed', async () => (await getClaim('quick')).status === 404, 5000, 5);
  const ms = Date.now() - t0;
  assert.ok(ms < 1000, `took ${ms} ms`);
});
