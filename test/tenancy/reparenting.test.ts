// Re-parenting through HierarchyConfiguration `spec.parent`, and delegated
// creation, on a server with TLS, authentication and RBAC: HNC's rights rule
// (the most recent common ancestor, or the old root and the new parent), its
// refusals (cycle, missing parent, moving a subnamespace, no rights: HNC's
// 401) with nothing
// stored, the tree labels of a whole moved subtree, and a namespace admin who
// creates subnamespaces with kubectl without any cluster-scoped right.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { secureRequest, startSecureServer, tokenKubeconfig } from '../security/helpers.js';
import { runKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/wait.js';
import { HNC } from './hierarchy-helpers.js';

type Server = Awaited<ReturnType<typeof startSecureServer>>;

describe('re-parenting and delegated creation with RBAC', () => {
  let server: Server;
  let aliceConfig: string;
  const admin = (method: string, path: string, body?: unknown) =>
    secureRequest(server.url, server.ca, method, path, { cert: server.admin.certData!, key: server.admin.keyData!, ...(body !== undefined ? { body } : {}) });
  const alice = (method: string, path: string, body?: unknown) =>
    secureRequest(server.url, server.ca, method, path, { headers: { authorization: 'Bearer alice-token' }, ...(body !== undefined ? { body } : {}) });
  const hierarchy = async (ns: string) => {
    const r = await admin('GET', `${HNC}/namespaces/${ns}/hierarchyconfigurations/hierarchy`);
    return r.status === 200 ? r.json : undefined;
  };
  const labels = async (ns: string) =>
    Object.fromEntries(Object.entries(((await admin('GET', `/api/v1/namespaces/${ns}`)).json.metadata.labels ?? {}) as Record<string, string>).filter(([k]) => k.includes('.tree.')));
  /** Sets spec.parent as `who`, creating `hierarchy` when missing. */
  const setParent = async (who: typeof admin, ns: string, parent: string | undefined) => {
    const existing = await hierarchy(ns);
    const spec = { ...(existing?.spec ?? {}) };
    if (parent === undefined) delete spec.parent;
    else spec.parent = parent;
    if (existing === undefined) {
      return who('POST', `${HNC}/namespaces/${ns}/hierarchyconfigurations`, { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchyConfiguration', metadata: { name: 'hierarchy' }, spec });
    }
    return who('PUT', `${HNC}/namespaces/${ns}/hierarchyconfigurations/hierarchy`, { ...existing, spec });
  };

  before(async () => {
    server = await startSecureServer();
    aliceConfig = tokenKubeconfig(server, 'alice', 'alice-token');
    for (const ns of ['a-root', 'a-mid', 'b-root', 'x']) assert.equal((await admin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status, 201);
    assert.equal((await setParent(admin, 'a-mid', 'a-root')).status, 201);
    // alice administers a-root (so, through the tree's rules, what hangs below it) and x.
    for (const ns of ['a-root', 'a-mid', 'x']) {
      const r = await admin('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        // x's binding has its own name: one named as an ancestor's would be overwritten by a move under it (HNC refuses that move).
        metadata: { name: ns === 'x' ? 'alice-admin-x' : 'alice-admin' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
      });
      assert.equal(r.status, 201, r.text);
    }
    // The aggregated admin role carries hnc.x-k8s.io (hnc-admin); wait for aggregation.
    await until('admin aggregates hnc-admin', async () => {
      const role = (await admin('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin')).json;
      return JSON.stringify(role.rules ?? []).includes('subnamespaceanchors');
    });
  });
  after(() => server.stop());

  it('a namespace admin creates a subnamespace with kubectl, without cluster-scoped rights', async () => {
    const denied = await runKubectl(aliceConfig, ['create', 'namespace', 'alice-own']);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /cannot create resource "namespaces" in API group "" at the cluster scope/);
    const r = await runKubectl(aliceConfig, ['create', '-n', 'x', '-f', '-'], {
      stdin: 'apiVersion: hnc.x-k8s.io/v1alpha2\nkind: SubnamespaceAnchor\nmetadata:\n  name: x-1\n',
    });
    assert.equal(r.code, 0, r.stderr);
    await until('x-1 created', async () => (await admin('GET', `${HNC}/namespaces/x/subnamespaceanchors/x-1`)).json?.status?.status === 'Ok');
    assert.equal((await admin('GET', '/api/v1/namespaces/x-1')).json.metadata.annotations['hnc.x-k8s.io/subnamespace-of'], 'x');
    // Without rights in a namespace, no anchor there.
    const none = await alice('POST', `${HNC}/namespaces/b-root/subnamespaceanchors`, { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'SubnamespaceAnchor', metadata: { name: 'b-1' } });
    assert.equal(none.status, 403, none.text);
    assert.match(none.json.message, /cannot create resource "subnamespaceanchors" in API group "hnc.x-k8s.io" in the namespace "b-root"/);
  });

  it('the edit role creates anchors too (hnc-edit aggregated into edit), but cannot re-parent', async () => {
    const bind = await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/x/rolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'bob-edit' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
    });
    assert.equal(bind.status, 201, bind.text);
    const bob = (method: string, path: string, body?: unknown) =>
      secureRequest(server.url, server.ca, method, path, { headers: { authorization: 'Bearer bob-token' }, ...(body !== undefined ? { body } : {}) });
    await until('edit aggregates hnc-edit', async () => JSON.stringify((await admin('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/edit')).json.rules ?? []).includes('subnamespaceanchors'));
    const created = await bob('POST', `${HNC}/namespaces/x/subnamespaceanchors`, { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'SubnamespaceAnchor', metadata: { name: 'x-2' } });
    assert.equal(created.status, 201, created.text);
    await until('x-2 created', async () => (await admin('GET', `${HNC}/namespaces/x/subnamespaceanchors/x-2`)).json?.status?.status === 'Ok');
    const hc = await bob('PUT', `${HNC}/namespaces/x/hierarchyconfigurations/hierarchy`, { ...(await hierarchy('x')), spec: { parent: 'a-mid' } });
    assert.equal(hc.status, 403, hc.text);
    // Status is the server's: an admin's write of it is not kept.
    await until('x lists both children', async () => JSON.stringify((await hierarchy('x')).status?.children) === '["x-1","x-2"]');
    const forged = await admin('PUT', `${HNC}/namespaces/x/hierarchyconfigurations/hierarchy`, { ...(await hierarchy('x')), status: { children: ['nobody'] } });
    assert.equal(forged.status, 200, forged.text);
    assert.deepEqual(forged.json.status.children, ['x-1', 'x-2']);
  });

  it('alice moves x under a namespace she administers; its subtree follows', async () => {
    // x holds its `hierarchy` already (the server made it when x got a subnamespace).
    const r = await setParent(alice, 'x', 'a-mid');
    assert.equal(r.status, 200, r.text);
    await until('x-1 relabelled', async () => (await labels('x-1'))['a-root.tree.hnc.x-k8s.io/depth'] === '3');
    assert.deepEqual(await labels('x-1'), {
      'x-1.tree.hnc.x-k8s.io/depth': '0',
      'x.tree.hnc.x-k8s.io/depth': '1',
      'a-mid.tree.hnc.x-k8s.io/depth': '2',
      'a-root.tree.hnc.x-k8s.io/depth': '3',
    });
    await until('a-mid lists x', async () => JSON.stringify((await hierarchy('a-mid')).status?.children) === '["x"]');
  });

  it('refuses a move without rights in the new parent, with HNC\'s answer (401 Unauthorized, its message), and stores nothing', async () => {
    const r = await setParent(alice, 'x', 'b-root');
    assert.equal(r.status, 401, r.text);
    assert.equal(r.json.reason, 'Unauthorized');
    assert.equal(r.json.message, 'User alice is not authorized to modify the subtree of b-root, which is the proposed parent');
    assert.equal((await hierarchy('x')).spec.parent, 'a-mid');
    // kubectl shows it as client-go shows any 401.
    const viaKubectl = await runKubectl(aliceConfig, ['patch', 'hierarchyconfigurations', 'hierarchy', '-n', 'x', '--type=merge', '-p', '{"spec":{"parent":"b-root"}}']);
    assert.notEqual(viaKubectl.code, 0);
    assert.match(viaKubectl.stderr, /User alice is not authorized to modify the subtree of b-root, which is the proposed parent/);
    assert.equal((await hierarchy('x')).spec.parent, 'a-mid');
    // Becoming a root takes rights in the current root (alice has them in a-root).
    const bob = await secureRequest(server.url, server.ca, 'PUT', `${HNC}/namespaces/x/hierarchyconfigurations/hierarchy`, {
      headers: { authorization: 'Bearer bob-token' },
      body: { ...(await hierarchy('x')), spec: {} },
    });
    assert.equal(bob.status, 403, bob.text);
    assert.match(bob.json.message, /cannot update resource "hierarchyconfigurations"/);
  });

  it('refuses cycles, missing parents and moving a subnamespace', async () => {
    const cycle = await setParent(admin, 'a-root', 'x');
    assert.equal(cycle.status, 409, cycle.text);
    assert.equal(
      cycle.json.message,
      'Operation cannot be fulfilled on hierarchyconfigurations.hnc.x-k8s.io "hierarchy": illegal parent: cycle when making "x" the parent of "a-root": current ancestry is x -> a-mid -> a-root',
    );
    const self = await setParent(admin, 'x', 'x');
    assert.equal(self.status, 409, self.text);
    assert.match(self.json.message, /illegal parent: "x" cannot be set as its own parent/);
    const missing = await setParent(admin, 'x', 'nowhere');
    assert.equal(missing.status, 403, missing.text);
    assert.equal(missing.json.message, 'hierarchyconfigurations.hnc.x-k8s.io "hierarchy" is forbidden: requested parent "nowhere" does not exist');
    const sub = await setParent(admin, 'x-1', 'b-root');
    assert.equal(sub.status, 409, sub.text);
    assert.match(sub.json.message, /illegal parent: Cannot set the parent of "x-1" to "b-root" because it's a subnamespace of "x"/);
    assert.equal((await hierarchy('a-root'))?.spec?.parent, undefined);
    assert.equal((await hierarchy('x')).spec.parent, 'a-mid');
    assert.equal((await hierarchy('x-1')).spec.parent, 'x');
  });

  it('the admin moves the subtree to another tree: no label of the old tree remains', async () => {
    const r = await setParent(admin, 'x', 'b-root');
    assert.equal(r.status, 200, r.text);
    await until('x-1 in b-root', async () => (await labels('x-1'))['b-root.tree.hnc.x-k8s.io/depth'] === '2');
    assert.deepEqual(await labels('x-1'), { 'x-1.tree.hnc.x-k8s.io/depth': '0', 'x.tree.hnc.x-k8s.io/depth': '1', 'b-root.tree.hnc.x-k8s.io/depth': '2' });
    // A list by the old tree's label finds only the old tree.
    const old = await admin('GET', `/api/v1/namespaces?labelSelector=${encodeURIComponent('a-root.tree.hnc.x-k8s.io/depth')}`);
    assert.deepEqual(old.json.items.map((n: { metadata: { name: string } }) => n.metadata.name).sort(), ['a-mid', 'a-root']);
    await until('a-mid lost its child', async () => (await hierarchy('a-mid')).status?.children === undefined);
  });
});
