// HierarchyConfiguration status kept by the server: status.children, and the
// ActivitiesHalted conditions HNC sets (ParentMissing on a namespace whose
// parent was deleted, AncestorHaltActivities on its descendants), cleared when
// the namespace becomes a root again.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from '../namespaces/helpers.js';
import { request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';
import { HNC, createNamespace, getJson, setParent, waitNamespaceGone } from './helpers.js';

describe('hierarchy conditions', () => {
  let cluster: Cluster;
  let base: string;
  before(async () => {
    cluster = await startCluster();
    base = cluster.server.url;
  });
  after(() => cluster.stop());

  const hierarchy = (ns: string) => getJson(base, `${HNC}/namespaces/${ns}/hierarchyconfigurations/hierarchy`);

  it('a deleted parent halts its full-namespace children and their descendants, until they are roots again', async () => {
    for (const ns of ['gone-parent', 'orphan', 'orphan-child']) await createNamespace(base, ns);
    assert.equal((await setParent(base, 'orphan', 'gone-parent')).status, 201);
    assert.equal((await setParent(base, 'orphan-child', 'orphan')).status, 201);
    await until('children listed', async () => JSON.stringify((await hierarchy('gone-parent'))?.status?.children) === '["orphan"]');
    // A parent of full namespaces only (no subnamespaces) may be deleted.
    assert.equal((await request(base, 'DELETE', '/api/v1/namespaces/gone-parent')).status, 200);
    await waitNamespaceGone(base, 'gone-parent');
    await until('ParentMissing on orphan', async () => (await hierarchy('orphan'))?.status?.conditions?.[0]?.reason === 'ParentMissing');
    const orphan = await hierarchy('orphan');
    assert.deepEqual(
      orphan.status.conditions.map((c: Record<string, string>) => [c.type, c.status, c.reason, c.message]),
      [['ActivitiesHalted', 'True', 'ParentMissing', 'Parent "gone-parent" does not exist']],
    );
    assert.match(orphan.status.conditions[0].lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    await until('AncestorHaltActivities on orphan-child', async () => (await hierarchy('orphan-child'))?.status?.conditions?.[0]?.reason === 'AncestorHaltActivities');
    assert.equal(
      (await hierarchy('orphan-child')).status.conditions[0].message,
      'Propagation paused in "orphan-child" and its descendants due to ActivitiesHalted condition on ancestor "orphan"',
    );
    // Becoming a root clears it (the old parent is gone: no rights asked of anyone's subtree).
    const r = await setParent(base, 'orphan', undefined);
    assert.equal(r.status, 200, r.text);
    await until('orphan cleared', async () => (await hierarchy('orphan'))?.status?.conditions === undefined);
    await until('orphan-child cleared', async () => (await hierarchy('orphan-child'))?.status?.conditions === undefined);
    assert.deepEqual((await hierarchy('orphan')).status.children, ['orphan-child']);
  });
});
