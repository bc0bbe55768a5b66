// Many namespaces deleted at once (issue 30): the namespace controller's cost
// per namespace must not depend on how many namespaces are being deleted or
// stored. Asserted structurally, not by time: the storage reads (range calls,
// etcd_request_duration_seconds{operation="list"}) a deletion makes do not grow
// with the number of namespaces. The deleter reads every namespaced type's content once
// or twice per pass; served from the watch cache (a list without a limit, as
// upstream's deleter lists) these reads never reach storage. Listed with a limit
// they went to storage, about 90 range reads per namespace.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cm, ns, startCluster, waitFor } from './helpers.js';
import { request } from '../helpers/http.js';

const NAMESPACES = 24;

/** etcd_request_duration_seconds_count{operation="list"} per type. */
async function storageLists(url: string): Promise<Map<string, number>> {
  const text = (await request(url, 'GET', '/metrics')).text;
  const counts = new Map<string, number>();
  for (const m of text.matchAll(/^etcd_request_duration_seconds_count\{operation="list",type="([^"]*)"\} (\d+)$/gm)) counts.set(m[1]!, Number(m[2]));
  return counts;
}

test(`deleting ${NAMESPACES} namespaces at once reads storage a bounded number of times per namespace`, async (t) => {
  const cluster = await startCluster();
  t.after(() => cluster.stop());
  const url = cluster.server.url;
  const names = Array.from({ length: NAMESPACES }, (_, i) => `mass-${i}`);
  await Promise.all(
    names.map(async (name) => {
      assert.equal((await request(url, 'POST', '/api/v1/namespaces', { body: { ...ns(name), metadata: { name, labels: { mass: 'yes' } } } })).status, 201);
      for (let i = 0; i < 3; i++) assert.equal((await request(url, 'POST', `/api/v1/namespaces/${name}/configmaps`, { body: cm(`c${i}`) })).status, 201);
      const binding = {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'view' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `user-${name}` }],
      };
      assert.equal((await request(url, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${name}/rolebindings`, { body: binding })).status, 201);
    }),
  );
  await request(url, 'POST', '/api/v1/namespaces', { body: ns('kept') });
  await request(url, 'POST', '/api/v1/namespaces/kept/configmaps', { body: cm('safe') });

  const before = await storageLists(url);
  await Promise.all(names.map(async (name) => assert.equal((await request(url, 'DELETE', `/api/v1/namespaces/${name}`)).status, 200)));
  await waitFor(
    'every namespace to be gone',
    async () => ((await request(url, 'GET', '/api/v1/namespaces?labelSelector=mass%3Dyes')).json.items.length === 0 ? true : undefined),
    60_000,
  );
  const after = await storageLists(url);

  const byType = [...after].map(([type, n]): [string, number] => [type, n - (before.get(type) ?? 0)]).filter(([, n]) => n > 0);
  // Per type, a read per namespace would be NAMESPACES or more. Unrelated
  // readers stay far below: the list width estimate reads each resource's count
  // at most once per 10 s, the wait above ends within 60 s.
  const busiest = Math.max(...byType.map(([, n]) => n));
  assert.ok(busiest < NAMESPACES / 2, `storage range reads per type while ${NAMESPACES} namespaces were deleted: ${byType.map(([type, n]) => `${type} ${n}`).join(', ')}`);
  assert.equal((await request(url, 'GET', '/api/v1/namespaces/kept/configmaps/safe')).status, 200, 'other namespaces are untouched');
  for (const path of ['/api/v1/configmaps', '/apis/rbac.authorization.k8s.io/v1/rolebindings']) {
    const left = (await request(url, 'GET', path)).json.items.filter((o: { metadata: { namespace: string } }) => o.metadata.namespace.startsWith('mass-'));
    assert.deepEqual(left, [], path);
  }
});
