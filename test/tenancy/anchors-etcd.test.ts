// Subnamespace anchors on two apiary servers sharing one etcd 3.5: both run the
// hierarchy's reconcilers, so each anchor is seen (and acted on) twice. An
// anchor made through one server gives the namespace, with its tree labels
// and subnamespace-of annotation, seen through the other; anchors made in
// parallel through both end Ok, each namespace made once (never Conflict from
// the two reconcilers racing); an existing namespace is refused on either
// side; deleting the anchor through one server removes the namespace for both.
// Needs etcd 3.5 (test/compat/etcd-3.5/bin/etcd, built by scripts/run-tests.mjs)
// or $ETCD_BIN; skipped without one.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { ETCD_35_PATH, etcd35Binary, startTwoServersOnEtcd, type TwoServers } from '../helpers/two-servers-etcd.js';
import { until } from '../helpers/wait.js';
import { HNC, createAnchor, createNamespace, getJson, treeLabels, waitAnchorState, waitNamespaceGone } from './hierarchy-helpers.js';

const binary = etcd35Binary;

describe('subnamespace anchors on two servers sharing etcd 3.5', { timeout: 240_000 }, () => {
  let servers: TwoServers | undefined;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    if (binary === undefined) return;
    // The namespace lifecycle (deleting a subnamespace's content) runs once, against server a.
    servers = await startTwoServersOnEtcd(binary, { systemNamespaces: false, garbageCollector: false, resourceQuota: false });
    ({ a, b } = servers);
  });
  after(async () => {
    await servers?.stop();
  });

  test('an anchor made through one server is a labelled subnamespace through the other', async (t) => {
    if (binary === undefined) return t.skip(`no etcd 3.5 at ${ETCD_35_PATH} and no $ETCD_BIN`);
    await createNamespace(a.url, 'two-org');
    assert.equal((await createAnchor(a.url, 'two-org', 'two-team')).status, 201);
    await waitAnchorState(b.url, 'two-org', 'two-team', 'Ok');
    const seen = await getJson(b.url, '/api/v1/namespaces/two-team');
    assert.equal(seen.metadata.annotations['hnc.x-k8s.io/subnamespace-of'], 'two-org');
    assert.deepEqual(await treeLabels(b.url, 'two-team'), { 'two-team.tree.hnc.x-k8s.io/depth': '0', 'two-org.tree.hnc.x-k8s.io/depth': '1' });
    await until('server b indexes the parent', () => b.hierarchy.parentOf('two-team') === 'two-org');
    // Nested, the other way round.
    assert.equal((await createAnchor(b.url, 'two-team', 'two-team-dev')).status, 201);
    await waitAnchorState(a.url, 'two-team', 'two-team-dev', 'Ok');
    assert.deepEqual(await treeLabels(a.url, 'two-team-dev'), {
      'two-team-dev.tree.hnc.x-k8s.io/depth': '0',
      'two-team.tree.hnc.x-k8s.io/depth': '1',
      'two-org.tree.hnc.x-k8s.io/depth': '2',
    });
    await until('both parents list their children', async () => JSON.stringify((await getJson(b.url, `${HNC}/namespaces/two-team/hierarchyconfigurations/hierarchy`))?.status?.children) === '["two-team-dev"]');
  });

  test('anchors made in parallel through both servers all end Ok, each namespace made once', async (t) => {
    if (binary === undefined) return t.skip(`no etcd 3.5 at ${ETCD_35_PATH} and no $ETCD_BIN`);
    await createNamespace(b.url, 'two-par');
    const names = Array.from({ length: 12 }, (_, i) => `two-par-${i}`);
    const replies = await Promise.all(names.map((name, i) => createAnchor(i % 2 === 0 ? a.url : b.url, 'two-par', name)));
    for (const r of replies) assert.equal(r.status, 201, r.text);
    for (const name of names) {
      await waitAnchorState(a.url, 'two-par', name, 'Ok');
      const ns = await getJson(b.url, `/api/v1/namespaces/${name}`);
      assert.equal(ns.metadata.annotations['hnc.x-k8s.io/subnamespace-of'], 'two-par');
      assert.equal(ns.status.phase, 'Active');
    }
    // Settled: no anchor flipped to another state afterwards on either server.
    await new Promise((r) => setTimeout(r, 500));
    for (const base of [a.url, b.url]) {
      const list = await getJson(base, `${HNC}/namespaces/two-par/subnamespaceanchors`);
      assert.deepEqual(list.items.map((x: { status?: { status?: string } }) => x.status?.status), names.map(() => 'Ok'));
    }
    await until('every child listed', async () => (await getJson(a.url, `${HNC}/namespaces/two-par/hierarchyconfigurations/hierarchy`))?.status?.children?.length === names.length);
  });

  test('an anchor for a namespace made through the other server is refused; deleting an anchor through one server removes the namespace for both', async (t) => {
    if (binary === undefined) return t.skip(`no etcd 3.5 at ${ETCD_35_PATH} and no $ETCD_BIN`);
    await createNamespace(a.url, 'two-taken');
    await until('server b sees two-taken', async () => (await getJson(b.url, '/api/v1/namespaces/two-taken')) !== undefined);
    const taken = await createAnchor(b.url, 'two-org', 'two-taken');
    assert.equal(taken.status, 409, taken.text);
    assert.equal((await getJson(a.url, '/api/v1/namespaces/two-taken')).metadata.annotations?.['hnc.x-k8s.io/subnamespace-of'], undefined);
    const del = await request(b.url, 'DELETE', `${HNC}/namespaces/two-team/subnamespaceanchors/two-team-dev`);
    assert.equal(del.status, 200, del.text);
    await waitNamespaceGone(a.url, 'two-team-dev', 30_000);
    await until('anchor gone on a', async () => (await getJson(a.url, `${HNC}/namespaces/two-team/subnamespaceanchors/two-team-dev`)) === undefined);
  });
});
