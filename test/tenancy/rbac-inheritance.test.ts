// RBAC inheritance (issue 31): a RoleBinding in a namespace applies in every
// descendant, resolved at authorization time. A binding created in an ancestor
// grants in the grandchild before its create returns, and stops granting before
// its delete returns (checked many times in a row, no wait in between); a
// propagated copy (hnc.x-k8s.io/inherited-from) grants nothing of its own; a
// change of the tree changes decisions (the decision cache follows it); the
// namespaces a tenant may see include the descendants of their bindings.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/wait.js';
import { secureRequest, startSecureServer, tokenKubeconfig } from '../security/helpers.js';

const G = '/apis/hnc.x-k8s.io/v1alpha2';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

let server: Awaited<ReturnType<typeof startSecureServer>>;
let admin: string;

const as = (token: string | undefined, method: string, path: string, body?: unknown) =>
  secureRequest(server.url, server.ca, method, path, {
    ...(token !== undefined ? { headers: { authorization: `Bearer ${token}` } } : {}),
    ...(body !== undefined ? { body } : {}),
  });
const asAdmin = (method: string, path: string, body?: unknown) =>
  secureRequest(server.url, server.ca, method, path, { cert: server.admin.certData!, key: server.admin.keyData!, ...(body !== undefined ? { body } : {}) });

async function setParent(ns: string, parent: string): Promise<void> {
  const r = await asAdmin('POST', `${G}/namespaces/${ns}/hierarchyconfigurations`, {
    apiVersion: 'hnc.x-k8s.io/v1alpha2',
    kind: 'HierarchyConfiguration',
    metadata: { name: 'hierarchy' },
    spec: { parent },
  });
  assert.equal(r.status, 201, r.text);
}

const binding = (name: string, user: string, labels?: Record<string, string>) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name, ...(labels !== undefined ? { labels } : {}) },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
});

before(async () => {
  server = await startSecureServer();
  admin = server.kubeconfigPath;
  for (const ns of ['inh-root', 'inh-mid', 'inh-leaf', 'inh-other']) {
    const r = await runKubectl(admin, ['create', 'ns', ns]);
    assert.equal(r.code, 0, r.stderr);
  }
  await setParent('inh-mid', 'inh-root');
  await setParent('inh-leaf', 'inh-mid');
  await until('the tree is indexed', () => server.hierarchy.ancestorsOf('inh-leaf').join() === 'inh-mid,inh-root');
});
after(() => server.stop());

test('a binding in an ancestor grants in every descendant from the moment its create returns, until its delete returns', async () => {
  const listLeaf = () => as('alice-token', 'GET', '/api/v1/namespaces/inh-leaf/configmaps');
  assert.equal((await listLeaf()).status, 403);
  for (let round = 0; round < 25; round++) {
    const created = await asAdmin('POST', `${RBAC}/namespaces/inh-root/rolebindings`, binding('alice-edit', 'alice'));
    assert.equal(created.status, 201, created.text);
    const leaf = await listLeaf();
    assert.equal(leaf.status, 200, `round ${round}: ${leaf.text}`);
    const mid = await as('alice-token', 'GET', '/api/v1/namespaces/inh-mid/configmaps');
    assert.equal(mid.status, 200, `round ${round}: ${mid.text}`);
    const deleted = await asAdmin('DELETE', `${RBAC}/namespaces/inh-root/rolebindings/alice-edit`);
    assert.equal(deleted.status, 200, deleted.text);
    const after = await listLeaf();
    assert.equal(after.status, 403, `round ${round}: ${after.text}`);
  }
  // Never outside the subtree.
  const created = await asAdmin('POST', `${RBAC}/namespaces/inh-mid/rolebindings`, binding('alice-mid', 'alice'));
  assert.equal(created.status, 201, created.text);
  assert.equal((await as('alice-token', 'GET', '/api/v1/namespaces/inh-leaf/configmaps')).status, 200);
  assert.equal((await as('alice-token', 'GET', '/api/v1/namespaces/inh-root/configmaps')).status, 403);
  assert.equal((await as('alice-token', 'GET', '/api/v1/namespaces/inh-other/configmaps')).status, 403);
  const can = await runKubectl(tokenKubeconfig(server, 'alice', 'alice-token'), ['auth', 'can-i', 'create', 'configmaps', '-n', 'inh-leaf']);
  assert.equal(can.stdout.trim(), 'yes');
  assert.equal((await asAdmin('DELETE', `${RBAC}/namespaces/inh-mid/rolebindings/alice-mid`)).status, 200);
});

test('the refusal in a descendant names no binding; the allowance names the ancestor\'s', async () => {
  const created = await asAdmin('POST', `${RBAC}/namespaces/inh-root/rolebindings`, binding('bob-edit', 'bob'));
  assert.equal(created.status, 201, created.text);
  try {
    const review = await as('bob-token', 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { namespace: 'inh-leaf', verb: 'create', resource: 'configmaps' } },
    });
    assert.equal(review.status, 201, review.text);
    assert.equal(review.json.status.allowed, true);
    assert.match(review.json.status.reason, /RoleBinding "bob-edit\/inh-root"/);
  } finally {
    await asAdmin('DELETE', `${RBAC}/namespaces/inh-root/rolebindings/bob-edit`);
  }
});

test('a propagated copy grants nothing of its own', async () => {
  // The copy as the propagation controller would write it, but with no source above.
  const copy = await asAdmin('POST', `${RBAC}/namespaces/inh-other/rolebindings`, binding('alice-copy', 'alice', { 'hnc.x-k8s.io/inherited-from': 'inh-root' }));
  if (copy.status === 201) {
    assert.equal((await as('alice-token', 'GET', '/api/v1/namespaces/inh-other/configmaps')).status, 403);
    await asAdmin('DELETE', `${RBAC}/namespaces/inh-other/rolebindings/alice-copy`);
  } else {
    // Admission refuses copies not written by the hierarchy: nothing to grant either.
    assert.equal(copy.status, 403, copy.text);
  }
});

test('re-parenting changes decisions: the cache follows the tree', async () => {
  const created = await asAdmin('POST', `${RBAC}/namespaces/inh-root/rolebindings`, binding('alice-root', 'alice'));
  assert.equal(created.status, 201, created.text);
  try {
    assert.equal((await as('alice-token', 'GET', '/api/v1/namespaces/inh-other/configmaps')).status, 403);
    await setParent('inh-other', 'inh-root');
    await until('inh-other under inh-root', async () => (await as('alice-token', 'GET', '/api/v1/namespaces/inh-other/configmaps')).status === 200);
    const alice = tokenKubeconfig(server, 'alice', 'alice-token');
    const seen = await runKubectl(alice, ['get', 'ns', '-o', 'name']);
    assert.equal(seen.code, 0, seen.stderr);
    assert.deepEqual(seen.stdout.trim().split('\n').sort(), ['namespace/inh-leaf', 'namespace/inh-mid', 'namespace/inh-other', 'namespace/inh-root']);
    const removed = await asAdmin('DELETE', `${G}/namespaces/inh-other/hierarchyconfigurations/hierarchy`);
    assert.equal(removed.status, 200, removed.text);
    await until('inh-other a root again', async () => (await as('alice-token', 'GET', '/api/v1/namespaces/inh-other/configmaps')).status === 403);
  } finally {
    await asAdmin('DELETE', `${RBAC}/namespaces/inh-root/rolebindings/alice-root`);
  }
});

test('a ServiceAccount subject without a namespace grants, in each descendant, that descendant\'s account (as HNC\'s copy would)', async () => {
  const created = await asAdmin('POST', `${RBAC}/namespaces/inh-root/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'deployers' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
    subjects: [{ kind: 'ServiceAccount', name: 'deployer' }],
  });
  assert.equal(created.status, 201, created.text);
  try {
    const asAccount = (ns: string, method: string, path: string) =>
      secureRequest(server.url, server.ca, method, path, {
        cert: server.admin.certData!, key: server.admin.keyData!,
        headers: { 'impersonate-user': `system:serviceaccount:${ns}:deployer` },
      });
    assert.equal((await asAccount('inh-leaf', 'GET', '/api/v1/namespaces/inh-leaf/configmaps')).status, 200);
    assert.equal((await asAccount('inh-root', 'GET', '/api/v1/namespaces/inh-root/configmaps')).status, 200);
    assert.equal((await asAccount('inh-root', 'GET', '/api/v1/namespaces/inh-leaf/configmaps')).status, 403);
    assert.equal((await asAccount('inh-leaf', 'GET', '/api/v1/namespaces/inh-mid/configmaps')).status, 403);
    const seen = await asAccount('inh-leaf', 'GET', '/api/v1/namespaces');
    assert.equal(seen.status, 200, seen.text);
    assert.deepEqual(seen.json.items.map((n: { metadata: { name: string } }) => n.metadata.name), ['inh-leaf']);
    const seenByRoot = await asAccount('inh-root', 'GET', '/api/v1/namespaces');
    assert.deepEqual(seenByRoot.json.items.map((n: { metadata: { name: string } }) => n.metadata.name), ['inh-root']);
  } finally {
    await asAdmin('DELETE', `${RBAC}/namespaces/inh-root/rolebindings/deployers`);
  }
});

test('an inherited binding reads its Role as the namespace shows it: a local Role of that name wins over the ancestor\'s', async () => {
  const role = (name: string, resource: string, annotations?: Record<string, string>) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name, ...(annotations !== undefined ? { annotations } : {}) },
    rules: [{ apiGroups: [''], resources: [resource], verbs: ['get', 'list'] }],
  });
  // The root's Role is kept out of inh-mid's subtree (HNC's treeSelect exception), so inh-mid may hold its own
  // Role of that name, which `kubectl get role reader -n inh-mid` (and, copied, `-n inh-leaf`) shows.
  const created = [
    await asAdmin('POST', `${RBAC}/namespaces/inh-root/roles`, role('reader', 'configmaps', { 'propagate.hnc.x-k8s.io/treeSelect': '!inh-mid' })),
    await asAdmin('POST', `${RBAC}/namespaces/inh-mid/roles`, role('reader', 'secrets')),
    await asAdmin('POST', `${RBAC}/namespaces/inh-root/rolebindings`, {
      ...binding('carol-reader', 'carol'),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
    }),
  ];
  for (const r of created) assert.equal(r.status, 201, r.text);
  const check = (ns: string, resource: string) => asAdminAs('carol', 'GET', `/api/v1/namespaces/${ns}/${resource}`);
  try {
    assert.equal((await check('inh-root', 'configmaps')).status, 200);
    assert.equal((await check('inh-root', 'secrets')).status, 403);
    for (const ns of ['inh-mid', 'inh-leaf']) {
      assert.equal((await check(ns, 'secrets')).status, 200, ns);
      assert.equal((await check(ns, 'configmaps')).status, 403, ns);
    }
    // Without the local Role, the ancestor's applies again at once.
    assert.equal((await asAdmin('DELETE', `${RBAC}/namespaces/inh-mid/roles/reader`)).status, 200);
    for (const ns of ['inh-mid', 'inh-leaf']) {
      assert.equal((await check(ns, 'configmaps')).status, 200, ns);
      assert.equal((await check(ns, 'secrets')).status, 403, ns);
    }
  } finally {
    await asAdmin('DELETE', `${RBAC}/namespaces/inh-root/rolebindings/carol-reader`);
    await asAdmin('DELETE', `${RBAC}/namespaces/inh-root/roles/reader`);
    await asAdmin('DELETE', `${RBAC}/namespaces/inh-mid/roles/reader`);
  }
});

/** A request of the admin impersonating `user`. */
function asAdminAs(user: string, method: string, path: string) {
  return secureRequest(server.url, server.ca, method, path, { cert: server.admin.certData!, key: server.admin.keyData!, headers: { 'impersonate-user': user } });
}
