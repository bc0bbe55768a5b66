// The namespace controller and the system namespaces controller against a
// real server, connected through the client library as in `apiary serve`.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionPlugin } from '../../src/admission/interface.js';
import { forbidden } from '../../src/machinery/errors.js';
import type { Namespace, NamespaceCondition } from '../../src/api/core/v1/types.js';
import { cm, ns, startCluster, waitFor, waitGone } from './helpers.js';
import { request } from '../helpers/http.js';

function condition(n: Namespace, type: string): NamespaceCondition | undefined {
  return n.status?.conditions?.find((c) => c.type === type);
}

const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
});

test('deleting a namespace empties every namespaced type found by discovery, then the namespace goes', async (t) => {
  const cluster = await startCluster();
  t.after(() => cluster.stop());
  const url = cluster.server.url;
  await request(url, 'POST', '/api/v1/namespaces', { body: ns('team') });
  await request(url, 'POST', '/api/v1/namespaces', { body: ns('neighbour') });
  for (let i = 0; i < 5; i++) assert.equal((await request(url, 'POST', '/api/v1/namespaces/team/configmaps', { body: cm(`c${i}`) })).status, 201);
  await request(url, 'POST', '/api/v1/namespaces/team/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } } });
  assert.equal((await request(url, 'POST', '/apis/apps/v1/namespaces/team/deployments', { body: deployment('d') })).status, 201);
  await request(url, 'POST', '/apis/coordination.k8s.io/v1/namespaces/team/leases', { body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' } } });
  await request(url, 'POST', '/api/v1/namespaces/neighbour/configmaps', { body: cm('safe') });

  const del = await request(url, 'DELETE', '/api/v1/namespaces/team');
  assert.equal(del.status, 200);
  assert.equal(del.json.status.phase, 'Terminating');
  await waitGone(cluster.client, 'team');
  for (const path of ['/api/v1/namespaces/team/configmaps', '/api/v1/namespaces/team/secrets', '/apis/apps/v1/namespaces/team/deployments', '/apis/coordination.k8s.io/v1/namespaces/team/leases']) {
    assert.equal((await request(url, 'GET', path)).json.items.length, 0, path);
  }
  assert.equal((await request(url, 'GET', '/api/v1/namespaces/neighbour/configmaps/safe')).status, 200, 'other namespaces are untouched');
});

test('a stuck finalizer keeps the namespace Terminating with NamespaceFinalizersRemaining until it is removed', async (t) => {
  const cluster = await startCluster();
  t.after(() => cluster.stop());
  const url = cluster.server.url;
  await request(url, 'POST', '/api/v1/namespaces', { body: ns('stuck') });
  for (const name of ['a', 'b', 'c']) await request(url, 'POST', '/api/v1/namespaces/stuck/configmaps', { body: cm(name, { finalizers: ['example.com/x'] }) });
  await request(url, 'POST', '/api/v1/namespaces/stuck/configmaps', { body: cm('plain') });
  await request(url, 'DELETE', '/api/v1/namespaces/stuck');

  const stuck = await waitFor('the remaining-content conditions', async () => {
    const n = (await cluster.client.namespaces<Namespace>().get('stuck')) as Namespace;
    return condition(n, 'NamespaceFinalizersRemaining')?.status === 'True' ? n : undefined;
  });
  assert.equal(stuck.status?.phase, 'Terminating');
  assert.deepEqual(stuck.spec?.finalizers, ['kubernetes']);
  const finalizers = condition(stuck, 'NamespaceFinalizersRemaining')!;
  assert.equal(finalizers.reason, 'SomeFinalizersRemain');
  assert.equal(finalizers.message, 'Some content in the namespace has finalizers remaining: example.com/x in 3 resource instances');
  assert.match(finalizers.lastTransitionTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const content = condition(stuck, 'NamespaceContentRemaining')!;
  assert.deepEqual(
    { status: content.status, reason: content.reason, message: content.message },
    { status: 'True', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: configmaps. has 3 resource instances' },
  );
  for (const [type, reason, message] of [
    ['NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'],
    ['NamespaceDeletionGroupVersionParsingFailure', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
    ['NamespaceDeletionContentFailure', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
  ] as const) {
    const c = condition(stuck, type)!;
    assert.deepEqual({ status: c.status, reason: c.reason, message: c.message }, { status: 'False', reason, message }, type);
  }
  const left = (await request(url, 'GET', '/api/v1/namespaces/stuck/configmaps')).json.items;
  assert.deepEqual(left.map((i: { metadata: { name: string } }) => i.metadata.name).sort(), ['a', 'b', 'c']);
  assert.ok(left.every((i: { metadata: { deletionTimestamp?: string } }) => i.metadata.deletionTimestamp), 'they are being deleted');

  // One released: the counts follow.
  const a = (await request(url, 'GET', '/api/v1/namespaces/stuck/configmaps/a')).json;
  await request(url, 'PUT', '/api/v1/namespaces/stuck/configmaps/a', { body: { ...a, metadata: { ...a.metadata, finalizers: [] } } });
  await waitFor('the counts to follow', async () => {
    const n = (await cluster.client.namespaces<Namespace>().get('stuck')) as Namespace;
    return condition(n, 'NamespaceContentRemaining')?.message === 'Some resources are remaining: configmaps. has 2 resource instances' ? true : undefined;
  });
  for (const name of ['b', 'c']) {
    const o = (await request(url, 'GET', `/api/v1/namespaces/stuck/configmaps/${name}`)).json;
    await request(url, 'PUT', `/api/v1/namespaces/stuck/configmaps/${name}`, { body: { ...o, metadata: { ...o.metadata, finalizers: [] } } });
  }
  await waitGone(cluster.client, 'stuck');
});

test('a failing resource type does not stop the others; it is reported and retried until it succeeds', async (t) => {
  // A real admission plugin in the real server refuses to delete secrets while `blocked`.
  let blocked = true;
  const guard: AdmissionPlugin = {
    name: 'SecretGuard',
    async admit(a) {
      if (blocked && a.operation === 'DELETE' && a.resource.resource === 'secrets') {
        throw forbidden({ group: '', resource: 'secrets' }, a.name, 'secrets are guarded');
      }
    },
  };
  const cluster = await startCluster({ server: { admission: [guard] } });
  t.after(() => cluster.stop());
  const url = cluster.server.url;
  await request(url, 'POST', '/api/v1/namespaces', { body: ns('guarded') });
  await request(url, 'POST', '/api/v1/namespaces/guarded/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'key' } } });
  for (const name of ['x', 'y']) await request(url, 'POST', '/api/v1/namespaces/guarded/configmaps', { body: cm(name) });
  await request(url, 'DELETE', '/api/v1/namespaces/guarded');

  const failing = await waitFor('NamespaceDeletionContentFailure', async () => {
    const n = (await cluster.client.namespaces<Namespace>().get('guarded')) as Namespace;
    return condition(n, 'NamespaceDeletionContentFailure')?.status === 'True' ? n : undefined;
  });
  const c = condition(failing, 'NamespaceDeletionContentFailure')!;
  assert.equal(c.reason, 'ContentDeletionFailed');
  assert.equal(c.message, 'Failed to delete all resource types, 1 remaining: secrets "key" is forbidden: secrets are guarded');
  assert.equal(failing.status?.phase, 'Terminating');
  assert.equal((await request(url, 'GET', '/api/v1/namespaces/guarded/configmaps')).json.items.length, 0, 'configmaps were deleted anyway');
  assert.equal((await request(url, 'GET', '/api/v1/namespaces/guarded/secrets')).json.items.length, 1);

  blocked = false;
  await waitGone(cluster.client, 'guarded', 15_000);
});

test('system namespaces: exactly the four exist, Active; a deleted kube-node-lease comes back within the interval', async (t) => {
  const cluster = await startCluster({ controllers: { systemNamespacesIntervalMs: 300, namespaceDeletionGracePeriodMs: 0 } });
  t.after(() => cluster.stop());
  const url = cluster.server.url;
  const list = (await request(url, 'GET', '/api/v1/namespaces')).json.items as Namespace[];
  assert.deepEqual(list.map((n) => n.metadata.name).sort(), ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
  assert.ok(list.every((n) => n.status?.phase === 'Active'));

  const before = (await request(url, 'GET', '/api/v1/namespaces/kube-node-lease')).json.metadata.uid;
  assert.equal((await request(url, 'DELETE', '/api/v1/namespaces/kube-node-lease')).status, 200);
  const again = await waitFor('kube-node-lease to be re-created', async () => {
    const res = await request(url, 'GET', '/api/v1/namespaces/kube-node-lease');
    return res.status === 200 && res.json.metadata.uid !== before ? res.json : undefined;
  });
  assert.equal(again.status.phase, 'Active');
});
