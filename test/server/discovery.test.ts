import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceType } from '../../src/registry/rest.js';
import { aggregatedDiscovery, apiGroup, apiGroupList, apiResourceList, apiVersions, storageVersionHash } from '../../src/server/discovery.js';

const ALL_VERBS: ResourceType['verbs'] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const types: ResourceType[] = [
  { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', listKind: 'NamespaceList', singularName: 'namespace', namespaced: false, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['ns'], categories: [], subresources: ['status', 'finalize'] },
  { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', listKind: 'ConfigMapList', singularName: 'configmap', namespaced: true, verbs: ['watch', 'list', 'get', 'create', 'update', 'patch', 'delete', 'deletecollection'], shortNames: ['cm'], categories: [], subresources: [] },
  { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', listKind: 'DeploymentList', singularName: 'deployment', namespaced: true, verbs: ALL_VERBS, shortNames: ['deploy'], categories: ['all'], subresources: ['status', 'scale'] },
  { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', listKind: 'LeaseList', singularName: 'lease', namespaced: true, verbs: ALL_VERBS, shortNames: [], categories: [], subresources: [] },
];

test('/api lists the core versions and the server address', () => {
  assert.deepEqual(apiVersions(types, '127.0.0.1:6443'), {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1:6443' }],
  });
});

test('/apis lists named groups in registration order with preferred versions', () => {
  assert.deepEqual(apiGroupList(types), {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [
      { name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }], preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } },
      {
        name: 'coordination.k8s.io',
        versions: [{ groupVersion: 'coordination.k8s.io/v1', version: 'v1' }],
        preferredVersion: { groupVersion: 'coordination.k8s.io/v1', version: 'v1' },
      },
    ],
  });
  assert.equal(apiGroup(types, 'apps')?.['kind'], 'APIGroup');
  assert.equal(apiGroup(types, 'batch'), undefined);
});

test('/api/v1 lists resources sorted, verbs sorted, subresources after their resource', () => {
  const list = apiResourceList(types, '', 'v1')!;
  assert.equal(list['kind'], 'APIResourceList');
  assert.equal(list['apiVersion'], undefined, 'the core list carries no apiVersion upstream');
  assert.equal(list['groupVersion'], 'v1');
  assert.deepEqual(list['resources'], [
    // storageVersionHash values as kube-apiserver 1.32's discovery shows them.
    { name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs: ALL_VERBS, shortNames: ['cm'], storageVersionHash: 'qFsyl6wFWjQ=' },
    { name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace', verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['ns'], storageVersionHash: 'Q3oi5N2YM8M=' },
    { name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update'] },
    { name: 'namespaces/status', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['get', 'patch', 'update'] },
  ]);
});

test('/apis/apps/v1 has categories and the scale subresource answers autoscaling/v1 Scale', () => {
  const list = apiResourceList(types, 'apps', 'v1')!;
  assert.equal(list['apiVersion'], 'v1');
  assert.equal(list['groupVersion'], 'apps/v1');
  const resources = list['resources'] as Array<Record<string, unknown>>;
  assert.deepEqual(resources[0]?.['categories'], ['all']);
  assert.deepEqual(resources[1], { name: 'deployments/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
  assert.equal(apiResourceList(types, 'apps', 'v2'), undefined);
});

test('storageVersionHash is upstream\'s hash of the group/version/kind objects are stored as', () => {
  // Values read from kube-apiserver 1.32's /apis/... discovery.
  assert.equal(storageVersionHash(types[2]!), '8aSe+NMegvE=');
  assert.equal(storageVersionHash(types[3]!), 'gqkMMb/YqFM=');
  // events.k8s.io/v1 events are stored as core v1 Events: the core hash.
  const eventsV1 = { ...types[1]!, group: 'events.k8s.io', resource: 'events', kind: 'Event', storageVersion: { group: '', version: 'v1', kind: 'Event' } };
  assert.equal(storageVersionHash(eventsV1), 'r2yiGXH7wu8=');
});

test('aggregated discovery v2: core group for /api, named groups for /apis', () => {
  const core = aggregatedDiscovery(types, 'api', 'v2');
  assert.equal(core['kind'], 'APIGroupDiscoveryList');
  assert.equal(core['apiVersion'], 'apidiscovery.k8s.io/v2');
  const items = core['items'] as Array<Record<string, unknown>>;
  assert.equal(items.length, 1);
  assert.deepEqual(items[0]?.['metadata'], { creationTimestamp: null });
  const version = (items[0]?.['versions'] as Array<Record<string, unknown>>)[0]!;
  assert.equal(version['version'], 'v1');
  assert.equal(version['freshness'], 'Current');
  const namespaces = (version['resources'] as Array<Record<string, unknown>>).find((r) => r['resource'] === 'namespaces')!;
  assert.deepEqual(namespaces, {
    resource: 'namespaces',
    responseKind: { group: '', version: '', kind: 'Namespace' },
    scope: 'Cluster',
    singularResource: 'namespace',
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['ns'],
    subresources: [
      { subresource: 'finalize', responseKind: { group: '', version: '', kind: 'Namespace' }, verbs: ['update'] },
      { subresource: 'status', responseKind: { group: '', version: '', kind: 'Namespace' }, verbs: ['get', 'patch', 'update'] },
    ],
  });

  const groups = aggregatedDiscovery(types, 'apis', 'v2beta1');
  assert.equal(groups['apiVersion'], 'apidiscovery.k8s.io/v2beta1');
  assert.deepEqual(
    (groups['items'] as Array<Record<string, unknown>>).map((i) => i['metadata']),
    [{ name: 'apps', creationTimestamp: null }, { name: 'coordination.k8s.io', creationTimestamp: null }],
  );
});
