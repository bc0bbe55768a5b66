// NamespaceLifecycle admission over HTTP: every message exact, and the race
// between creating content and deleting its namespace.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Cluster, cm, ns, startCluster, waitGone } from './helpers.js';
import { request } from '../helpers/http.js';

let bare: Cluster;
let base: string;

before(async () => {
  bare = await startCluster({ controllers: false });
  base = bare.server.url;
  for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) await request(base, 'POST', '/api/v1/namespaces', { body: ns(name) });
});
after(() => bare.stop());

test('content in a namespace that does not exist: 404 namespaces "x" not found (create and update)', async () => {
  const create = await request(base, 'POST', '/api/v1/namespaces/missing/configmaps', { body: cm('a') });
  assert.equal(create.status, 404);
  assert.equal(create.json.reason, 'NotFound');
  assert.equal(create.json.message, 'namespaces "missing" not found');
  assert.deepEqual(create.json.details, { name: 'missing', kind: 'namespaces' });
  const put = await request(base, 'PUT', '/api/v1/namespaces/missing/configmaps/a', { body: cm('a') });
  assert.equal(put.status, 404);
  // Cluster-scoped resources are not namespaced content.
  const node = await request(base, 'POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } } });
  assert.equal(node.status, 201, JSON.stringify(node.json));
});

test('a Terminating namespace: no new content (403 with NamespaceTerminating cause); updates and deletes of existing content pass', async () => {
  await request(base, 'POST', '/api/v1/namespaces', { body: ns('ending') });
  assert.equal((await request(base, 'POST', '/api/v1/namespaces/ending/configmaps', { body: cm('kept', { finalizers: ['example.com/x'] }) })).status, 201);
  assert.equal((await request(base, 'POST', '/api/v1/namespaces/ending/configmaps', { body: cm('other') })).status, 201);
  assert.equal((await request(base, 'DELETE', '/api/v1/namespaces/ending')).status, 200);

  const create = await request(base, 'POST', '/api/v1/namespaces/ending/configmaps', { body: cm('x') });
  assert.equal(create.status, 403);
  assert.equal(create.json.reason, 'Forbidden');
  assert.equal(create.json.message, 'configmaps "x" is forbidden: unable to create new content in namespace ending because it is being terminated');
  assert.deepEqual(create.json.details, {
    name: 'x',
    kind: 'configmaps',
    causes: [{ reason: 'NamespaceTerminating', message: 'namespace ending is being terminated', field: 'metadata.namespace' }],
  });
  const apps = await request(base, 'POST', '/apis/apps/v1/namespaces/ending/deployments', { body: {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
  } });
  assert.equal(apps.status, 403);
  assert.equal(apps.json.message, 'deployments.apps "d" is forbidden: unable to create new content in namespace ending because it is being terminated');
  assert.equal(apps.json.details.group, 'apps');

  const current = (await request(base, 'GET', '/api/v1/namespaces/ending/configmaps/kept')).json;
  const update = await request(base, 'PUT', '/api/v1/namespaces/ending/configmaps/kept', { body: { ...current, data: { k: 'changed' } } });
  assert.equal(update.status, 200, 'updates of existing content are allowed');
  const release = await request(base, 'PUT', '/api/v1/namespaces/ending/configmaps/kept', { body: { ...update.json, metadata: { ...update.json.metadata, finalizers: [] } } });
  assert.equal(release.status, 200, 'finalizers can be removed');
  assert.equal((await request(base, 'DELETE', '/api/v1/namespaces/ending/configmaps/other')).status, 200, 'deletes are allowed');
});

test('default, kube-system and kube-public may not be deleted; kube-node-lease may', async () => {
  for (const name of ['default', 'kube-system', 'kube-public']) {
    const res = await request(base, 'DELETE', `/api/v1/namespaces/${name}`);
    assert.equal(res.status, 403, name);
    assert.equal(res.json.reason, 'Forbidden');
    assert.equal(res.json.message, `namespaces "${name}" is forbidden: this namespace may not be deleted`);
    assert.deepEqual(res.json.details, { name, kind: 'namespaces' });
    assert.equal((await request(base, 'GET', `/api/v1/namespaces/${name}`)).json.status.phase, 'Active');
  }
  const lease = await request(base, 'DELETE', '/api/v1/namespaces/kube-node-lease');
  assert.equal(lease.status, 200);
  assert.equal(lease.json.status.phase, 'Terminating');
});

test('race: content created while its namespace starts terminating never outlives the namespace', async (t) => {
  const cluster = await startCluster();
  t.after(() => cluster.stop());
  const url = cluster.server.url;
  for (let round = 0; round < 3; round++) {
    const name = `race-${round}`;
    assert.equal((await request(url, 'POST', '/api/v1/namespaces', { body: ns(name) })).status, 201);
    // Writers hammer the namespace while it is deleted under them.
    let stop = false;
    const outcomes = new Map<number, number>();
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const res = await request(url, 'POST', `/api/v1/namespaces/${name}/configmaps`, { body: cm(`w${w}-${i}`) });
        outcomes.set(res.status, (outcomes.get(res.status) ?? 0) + 1);
        if (res.status !== 201) assert.ok(res.status === 403 || res.status === 404, `unexpected ${res.status}: ${JSON.stringify(res.json)}`);
        if (res.status === 404) return;
      }
    };
    const writers = Array.from({ length: 4 }, (_, w) => writer(w));
    await new Promise((r) => setTimeout(r, 30 + round * 20));
    assert.equal((await request(url, 'DELETE', `/api/v1/namespaces/${name}`)).status, 200);
    await waitGone(cluster.client, name);
    stop = true;
    await Promise.all(writers);
    assert.ok((outcomes.get(201) ?? 0) > 0, 'some creates landed before the deletion');
    assert.ok((outcomes.get(403) ?? 0) + (outcomes.get(404) ?? 0) > 0, 'creates after the deletion were refused');
    const left = await request(url, 'GET', `/api/v1/namespaces/${name}/configmaps`);
    assert.equal(left.json.items.length, 0, `no configmap outlived namespace ${name}`);
  }
});
