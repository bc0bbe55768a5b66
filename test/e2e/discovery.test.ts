// Discovery, version, health and metrics over real HTTP.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { configMap, get, request } from '../helpers/http.js';

let server: TestServer;
let base: string;

before(async () => {
  server = await startTestServer({ storage: 'memory' });
  base = server.url;
});
after(() => server.stop());

const AGGREGATED_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

test('/healthz, /livez, /readyz answer ok', async () => {
  for (const path of ['/healthz', '/livez', '/readyz']) {
    const reply = await get(base, path);
    assert.equal(reply.status, 200);
    assert.equal(reply.text, 'ok');
    assert.match(reply.contentType, /^text\/plain/);
  }
});

test('/version reports 1.32', async () => {
  const reply = await get(base, '/version');
  assert.equal(reply.json.major, '1');
  assert.equal(reply.json.minor, '32');
  assert.match(reply.json.gitVersion, /^v1\.32\.\d+/);
  assert.match(reply.json.platform, /\//);
});

test('/api and /api/v1', async () => {
  const api = await get(base, '/api');
  assert.equal(api.json.kind, 'APIVersions');
  assert.deepEqual(api.json.versions, ['v1']);
  assert.equal(api.json.serverAddressByClientCIDRs[0].serverAddress, `127.0.0.1:${server.port}`);

  const v1 = await get(base, '/api/v1');
  assert.equal(v1.json.kind, 'APIResourceList');
  assert.equal(v1.json.groupVersion, 'v1');
  const byName = new Map(v1.json.resources.map((r: { name: string }) => [r.name, r]));
  assert.deepEqual(byName.get('configmaps'), {
    name: 'configmaps',
    singularName: 'configmap',
    namespaced: true,
    kind: 'ConfigMap',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['cm'],
    storageVersionHash: 'qFsyl6wFWjQ=',
  });
  // Every resource carries the hash kube-apiserver 1.32 shows (of the kind it is stored as); subresources none,
  // nor the resources kept in no storage (bindings, componentstatuses).
  const hashes = Object.fromEntries(
    v1.json.resources.filter((r: { name: string }) => !r.name.includes('/')).map((r: { name: string; storageVersionHash: string }) => [r.name, r.storageVersionHash]),
  );
  assert.deepEqual(hashes, {
    configmaps: 'qFsyl6wFWjQ=', endpoints: 'fWeeMqaN/OA=', events: 'r2yiGXH7wu8=', limitranges: 'EBKMFVe6cwo=', namespaces: 'Q3oi5N2YM8M=',
    bindings: undefined, componentstatuses: undefined,
    nodes: 'XwShjMxG9Fs=', persistentvolumeclaims: 'QWTyNDq0dC4=', persistentvolumes: 'HN/zwEC+JgM=', pods: 'xPOwRZ+Yhw8=', podtemplates: 'LIXB2x4IFpk=', replicationcontrollers: 'Jond2If31h0=', resourcequotas: '8uhSgffRX6w=',
    secrets: 'S6u1pOWzb84=', serviceaccounts: 'pbx9ZvyFpBE=', services: '0/CO1lhkEBI=',
  });
  assert.equal((byName.get('pods/status') as { storageVersionHash?: string }).storageVersionHash, undefined);
  const eventsV1 = await get(base, '/apis/events.k8s.io/v1');
  assert.equal(eventsV1.json.resources[0].storageVersionHash, 'r2yiGXH7wu8=', 'stored as core v1 Event');
  assert.equal((byName.get('namespaces') as { namespaced: boolean }).namespaced, false);
  assert.deepEqual((byName.get('namespaces/finalize') as { verbs: string[] }).verbs, ['update']);
});

test('/apis, /apis/apps and /apis/apps/v1', async () => {
  const apis = await get(base, '/apis');
  assert.equal(apis.json.kind, 'APIGroupList');
  const apps = apis.json.groups.find((g: { name: string }) => g.name === 'apps');
  assert.deepEqual(apps.preferredVersion, { groupVersion: 'apps/v1', version: 'v1' });
  const group = await get(base, '/apis/apps');
  assert.equal(group.json.kind, 'APIGroup');
  const list = await get(base, '/apis/apps/v1');
  assert.equal(list.json.groupVersion, 'apps/v1');
  const deployments = list.json.resources.find((r: { name: string }) => r.name === 'deployments');
  assert.deepEqual(deployments.shortNames, ['deploy']);
  assert.deepEqual(deployments.categories, ['all']);
});

test('aggregated discovery when Accept asks for apidiscovery.k8s.io/v2', async () => {
  for (const [path, itemCount] of [['/api', 1], ['/apis', undefined]] as const) {
    const reply = await get(base, path, { accept: AGGREGATED_ACCEPT });
    assert.equal(reply.status, 200);
    assert.equal(reply.contentType, 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    assert.equal(reply.json.kind, 'APIGroupDiscoveryList');
    assert.equal(reply.json.apiVersion, 'apidiscovery.k8s.io/v2');
    if (itemCount !== undefined) assert.equal(reply.json.items.length, itemCount);
  }
  const apis = await get(base, '/apis', { accept: AGGREGATED_ACCEPT });
  const apps = apis.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'apps');
  const deployments = apps.versions[0].resources.find((r: { resource: string }) => r.resource === 'deployments');
  assert.equal(deployments.scope, 'Namespaced');
  // As upstream: a built-in resource's own kind leaves group and version empty.
  assert.deepEqual(deployments.responseKind, { group: '', version: '', kind: 'Deployment' });

  const beta = await get(base, '/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' });
  assert.equal(beta.contentType, 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
  const legacy = await get(base, '/apis');
  assert.equal(legacy.json.kind, 'APIGroupList');
});

test('/metrics counts requests and objects', async () => {
  await request(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'metrics' } } });
  await request(base, 'POST', '/api/v1/namespaces/metrics/configmaps', { body: configMap('m') });
  await get(base, '/api/v1/namespaces/metrics/configmaps/m');
  await get(base, "/api/v1/namespaces/metrics/configmaps");
  const reply = await get(base, '/metrics');
  assert.equal(reply.status, 200);
  assert.match(reply.text, /apiserver_request_total\{verb="GET",resource="configmaps",code="200"\} \d+/);
  assert.match(reply.text, /apiserver_request_total\{verb="POST",resource="configmaps",code="201"\} 1/);
  assert.match(reply.text, /apiserver_request_total\{verb="LIST",resource="configmaps",code="200"\} 1/);
  assert.match(reply.text, /apiserver_request_duration_seconds_bucket\{le="0.005",verb="GET",resource="configmaps"\}/);
  assert.match(reply.text, /etcd_request_duration_seconds_count\{operation="create",type="configmaps"\} 1/);
  assert.match(reply.text, /apiserver_storage_objects\{resource="configmaps"\} 1/);
});
