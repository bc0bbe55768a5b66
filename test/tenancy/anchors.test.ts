// Delegated namespace creation through SubnamespaceAnchors, against a real
// server with apiary's controllers (namespace deletion) and real kubectl:
// the subnamespace, its annotation, tree labels and `hierarchy`; the anchor's
// states; the refusals (existing namespace, terminating or unmanaged parent,
// tree labels set by hand); deletion of leaves and of whole subtrees.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from '../namespaces/helpers.js';
import { request, get } from '../helpers/http.js';
import { runKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/wait.js';
import { HNC, createAnchor, createNamespace, getJson, setParent, treeLabels, waitAnchorState, waitNamespaceGone } from './helpers.js';

describe('subnamespace anchors', () => {
  let cluster: Cluster;
  let base: string;
  before(async () => {
    cluster = await startCluster();
    base = cluster.server.url;
  });
  after(() => cluster.stop());

  it('kubectl creates an anchor; the server makes the subnamespace, its labels and its hierarchy', async () => {
    await createNamespace(base, 'team');
    const applied = await runKubectl(cluster.server.kubeconfigPath, ['apply', '-n', 'team', '-f', '-'], {
      stdin: 'apiVersion: hnc.x-k8s.io/v1alpha2\nkind: SubnamespaceAnchor\nmetadata:\n  name: team-dev\n',
    });
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /subnamespaceanchor.hnc.x-k8s.io\/team-dev created/);
    await waitAnchorState(base, 'team', 'team-dev', 'Ok');
    const ns = await getJson(base, '/api/v1/namespaces/team-dev');
    assert.equal(ns.metadata.annotations['hnc.x-k8s.io/subnamespace-of'], 'team');
    assert.equal(ns.status.phase, 'Active');
    assert.deepEqual(await treeLabels(base, 'team-dev'), { 'team-dev.tree.hnc.x-k8s.io/depth': '0', 'team.tree.hnc.x-k8s.io/depth': '1' });
    const hc = await getJson(base, `${HNC}/namespaces/team-dev/hierarchyconfigurations/hierarchy`);
    assert.equal(hc.spec.parent, 'team');
    const anchor = await getJson(base, `${HNC}/namespaces/team/subnamespaceanchors/team-dev`);
    assert.deepEqual(anchor.metadata.finalizers, ['hnc.x-k8s.io']);
    // The parent joins the tree: its own label, and its children in its hierarchy's status.
    await until('team labelled', async () => (await treeLabels(base, 'team'))['team.tree.hnc.x-k8s.io/depth'] === '0');
    await until('team lists its child', async () => JSON.stringify((await getJson(base, `${HNC}/namespaces/team/hierarchyconfigurations/hierarchy`))?.status?.children) === '["team-dev"]');
    const printed = await runKubectl(cluster.server.kubeconfigPath, ['get', 'subns', '-n', 'team']);
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, /^NAME\s+AGE\nteam-dev\s+\S+\n$/);
    // A grandchild: labels of the whole ancestry.
    assert.equal((await createAnchor(base, 'team-dev', 'team-dev-a')).status, 201);
    await waitAnchorState(base, 'team-dev', 'team-dev-a', 'Ok');
    assert.deepEqual(await treeLabels(base, 'team-dev-a'), {
      'team-dev-a.tree.hnc.x-k8s.io/depth': '0',
      'team-dev.tree.hnc.x-k8s.io/depth': '1',
      'team.tree.hnc.x-k8s.io/depth': '2',
    });
    assert.deepEqual(cluster.server.hierarchy.ancestorsOf('team-dev-a'), ['team-dev', 'team']);
    assert.equal(cluster.server.hierarchy.isSubnamespace('team-dev-a'), true);
  });

  it('refuses an anchor for an existing full namespace (Conflict), and stores nothing', async () => {
    await createNamespace(base, 'owner');
    await createNamespace(base, 'taken');
    const r = await createAnchor(base, 'owner', 'taken');
    assert.equal(r.status, 409, r.text);
    assert.equal(r.json.reason, 'Conflict');
    assert.equal(r.json.message, 'Operation cannot be fulfilled on subnamespaceanchors.hnc.x-k8s.io "taken": cannot create a subnamespace using an existing namespace');
    assert.equal((await get(base, `${HNC}/namespaces/owner/subnamespaceanchors/taken`)).status, 404);
    const ns = await getJson(base, '/api/v1/namespaces/taken');
    assert.equal(ns.metadata.annotations?.['hnc.x-k8s.io/subnamespace-of'], undefined);
    assert.deepEqual(await treeLabels(base, 'taken'), {});
  });

  it('refuses anchors in unmanaged and terminating namespaces', async () => {
    const system = await createAnchor(base, 'kube-system', 'sys-child');
    assert.equal(system.status, 403, system.text);
    assert.equal(system.json.message, 'subnamespaceanchors.hnc.x-k8s.io "kube-system" is forbidden: cannot create a subnamespace in the unmanaged namespace "kube-system" (excluded by the HNC administrator)');
    const named = await createAnchor(base, 'owner', 'kube-public');
    assert.equal(named.status, 403, named.text);

    await createNamespace(base, 'leaving', { finalizers: ['example.com/hold'] });
    assert.equal((await request(base, 'DELETE', '/api/v1/namespaces/leaving')).status, 200);
    const r = await createAnchor(base, 'leaving', 'leaving-child');
    assert.equal(r.status, 403, r.text);
    assert.match(r.json.message, /unable to create new content in namespace leaving because it is being terminated/);
    assert.equal((await get(base, '/api/v1/namespaces/leaving-child')).status, 404);
    const ns = await getJson(base, '/api/v1/namespaces/leaving');
    await request(base, 'PUT', '/api/v1/namespaces/leaving', { body: { ...ns, metadata: { ...ns.metadata, finalizers: [] } } });
  });

  it('reports Conflict and Forbidden states for anchors admission never saw (written by the server itself)', async () => {
    // Admission refuses both on the API; written straight to the store, the reconciler still says what they are.
    await createNamespace(base, 'holder');
    await createNamespace(base, 'squatted');
    const anchors = cluster.server.registry.storeFor('hnc.x-k8s.io', 'subnamespaceanchors')!;
    const body = (name: string) => ({ apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'SubnamespaceAnchor', metadata: { name, namespace: 'holder' } });
    await anchors.create('holder', body('squatted'), {});
    await anchors.create('holder', body('kube-node-lease'), {});
    await waitAnchorState(base, 'holder', 'squatted', 'Conflict');
    await waitAnchorState(base, 'holder', 'kube-node-lease', 'Forbidden');
    // Neither namespace was taken over.
    assert.equal((await getJson(base, '/api/v1/namespaces/squatted')).metadata.annotations?.['hnc.x-k8s.io/subnamespace-of'], undefined);
    assert.equal((await getJson(base, '/api/v1/namespaces/kube-node-lease')).metadata.annotations?.['hnc.x-k8s.io/subnamespace-of'], undefined);
    // A Conflict anchor goes without touching the namespace.
    assert.equal((await request(base, 'DELETE', `${HNC}/namespaces/holder/subnamespaceanchors/squatted`)).status, 200);
    await until('conflicted anchor gone', async () => (await get(base, `${HNC}/namespaces/holder/subnamespaceanchors/squatted`)).status === 404);
    assert.equal((await getJson(base, '/api/v1/namespaces/squatted')).status.phase, 'Active');
  });

  it('keeps tree labels and the subnamespace annotation to the server', async () => {
    const ns = await getJson(base, '/api/v1/namespaces/team-dev');
    const labels = { ...ns.metadata.labels, 'team-dev.tree.hnc.x-k8s.io/depth': '5' };
    const r = await request(base, 'PUT', '/api/v1/namespaces/team-dev', { body: { ...ns, metadata: { ...ns.metadata, labels } } });
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.message, 'namespaces "team-dev" is forbidden: cannot set or modify tree label "team-dev.tree.hnc.x-k8s.io/depth" in namespace "team-dev"; these can only be managed by HNC');
    const forged = await request(base, 'POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'forged', labels: { 'team.tree.hnc.x-k8s.io/depth': '1' } } },
    });
    assert.equal(forged.status, 403, forged.text);
    assert.equal((await get(base, '/api/v1/namespaces/forged')).status, 404);
    // Anchor status is the server's too.
    const anchor = await getJson(base, `${HNC}/namespaces/team/subnamespaceanchors/team-dev`);
    const put = await request(base, 'PUT', `${HNC}/namespaces/team/subnamespaceanchors/team-dev`, { body: { ...anchor, status: { status: 'Conflict' } } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.status.status, 'Ok');
  });

  it('refuses deleting a subnamespace directly, a non-leaf anchor and a parent of subnamespaces', async () => {
    const direct = await request(base, 'DELETE', '/api/v1/namespaces/team-dev');
    assert.equal(direct.status, 403, direct.text);
    assert.equal(direct.json.message, 'namespaces "team-dev" is forbidden: is a subnamespace. Please delete the anchor from the parent namespace team to delete the subnamespace');
    const anchor = await request(base, 'DELETE', `${HNC}/namespaces/team/subnamespaceanchors/team-dev`);
    assert.equal(anchor.status, 403, anchor.text);
    assert.equal(
      anchor.json.message,
      'subnamespaceanchors.hnc.x-k8s.io "team-dev" is forbidden: subnamespace team-dev is not a leaf and doesn\'t allow cascading deletion. Please set allowCascadingDeletion flag or make it a leaf first',
    );
    const parent = await request(base, 'DELETE', '/api/v1/namespaces/team');
    assert.equal(parent.status, 403, parent.text);
    assert.equal(
      parent.json.message,
      "namespaces \"team\" is forbidden: contains subnamespaces. Please remove all subnamespaces before deleting this namespace, or set 'allowCascadingDeletion' to delete them automatically",
    );
    // Nothing changed.
    assert.equal((await getJson(base, '/api/v1/namespaces/team')).status.phase, 'Active');
    assert.equal((await getJson(base, `${HNC}/namespaces/team/subnamespaceanchors/team-dev`)).metadata.deletionTimestamp, undefined);
  });

  it('deleting a leaf anchor deletes its subnamespace through the Terminating lifecycle', async () => {
    await request(base, 'POST', '/api/v1/namespaces/team-dev-a/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } });
    const r = await runKubectl(cluster.server.kubeconfigPath, ['delete', 'subns', '-n', 'team-dev', 'team-dev-a', '--wait=false']);
    assert.equal(r.code, 0, r.stderr);
    await waitNamespaceGone(base, 'team-dev-a');
    await until('anchor gone', async () => (await get(base, `${HNC}/namespaces/team-dev/subnamespaceanchors/team-dev-a`)).status === 404);
    await until('team-dev has no children', async () => (await getJson(base, `${HNC}/namespaces/team-dev/hierarchyconfigurations/hierarchy`))?.status?.children === undefined);
  });

  it('with allowCascadingDeletion, deleting a namespace takes its whole subtree', async () => {
    await createNamespace(base, 'org');
    assert.equal((await createAnchor(base, 'org', 'org-a')).status, 201);
    await waitAnchorState(base, 'org', 'org-a', 'Ok');
    assert.equal((await createAnchor(base, 'org-a', 'org-a-1')).status, 201);
    await waitAnchorState(base, 'org-a', 'org-a-1', 'Ok');
    assert.equal((await request(base, 'DELETE', '/api/v1/namespaces/org')).status, 403);
    const set = await setParent(base, 'org', undefined, { allowCascadingDeletion: true });
    assert.equal(set.status, 200, set.text);
    await until('index sees the flag', () => cluster.server.hierarchy.allowsCascadingDeletion('org-a-1'));
    const del = await request(base, 'DELETE', '/api/v1/namespaces/org');
    assert.equal(del.status, 200, del.text);
    for (const name of ['org-a-1', 'org-a', 'org']) await waitNamespaceGone(base, name, 20_000);
  });
});
