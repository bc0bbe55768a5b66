// RBAC inheritance on etcd, where a watch event reaches the server's RBAC
// index some time after the write: a RoleBinding created in an ancestor
// grants in the grandchild as soon as its create returns, and stops granting
// as soon as its delete returns (RBAC writes wait for the index), round after
// round without waiting in between.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { until } from '../helpers/wait.js';
import { secureRequest, startSecureServer } from '../security/helpers.js';

const G = '/apis/hnc.x-k8s.io/v1alpha2';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

let etcd: EtcdCluster;
let server: Awaited<ReturnType<typeof startSecureServer>>;

const asAdmin = (method: string, path: string, body?: unknown) =>
  secureRequest(server.url, server.ca, method, path, { cert: server.admin.certData!, key: server.admin.keyData!, ...(body !== undefined ? { body } : {}) });
const asAlice = (method: string, path: string) => secureRequest(server.url, server.ca, method, path, { headers: { authorization: 'Bearer alice-token' } });

before(async () => {
  etcd = await startEtcd();
  server = await startSecureServer({}, { storage: 'etcd', etcdServers: etcd.endpoints });
  for (const ns of ['etcd-root', 'etcd-mid', 'etcd-leaf']) {
    const r = await asAdmin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    assert.equal(r.status, 201, r.text);
  }
  for (const [ns, parent] of [['etcd-mid', 'etcd-root'], ['etcd-leaf', 'etcd-mid']] as const) {
    const r = await asAdmin('POST', `${G}/namespaces/${ns}/hierarchyconfigurations`, {
      apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchyConfiguration', metadata: { name: 'hierarchy' }, spec: { parent },
    });
    assert.equal(r.status, 201, r.text);
  }
  await until('the tree is indexed', () => server.hierarchy.ancestorsOf('etcd-leaf').join() === 'etcd-mid,etcd-root');
});
after(async () => {
  await server?.stop();
  await etcd?.stop();
});

test('on etcd, an ancestor binding grants in the grandchild when its create returns and stops when its delete returns', async () => {
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'alice-edit' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
  };
  for (let round = 0; round < 25; round++) {
    const created = await asAdmin('POST', `${RBAC}/namespaces/etcd-root/rolebindings`, binding);
    assert.equal(created.status, 201, created.text);
    const granted = await asAlice('GET', '/api/v1/namespaces/etcd-leaf/configmaps');
    assert.equal(granted.status, 200, `round ${round}: ${granted.text}`);
    const deleted = await asAdmin('DELETE', `${RBAC}/namespaces/etcd-root/rolebindings/alice-edit`);
    assert.equal(deleted.status, 200, deleted.text);
    const refused = await asAlice('GET', '/api/v1/namespaces/etcd-leaf/configmaps');
    assert.equal(refused.status, 403, `round ${round}: ${refused.text}`);
  }
});
