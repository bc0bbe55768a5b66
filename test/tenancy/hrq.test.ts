// HierarchicalResourceQuota on one server (SQLite) with the controllers beside
// it: an HRQ in P bounds the sum over P and its descendants; concurrent
// creates spread over a subtree never overshoot; refusals name the HRQ and
// the namespace holding it; status sums the subtree, is released on delete
// and follows re-parenting; an unknown resource name is a 422.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RestClient } from '../../src/client/index.js';
import { type RunningControllerManager, startControllerManager } from '../../src/controllers/manager.js';
import { request } from '../helpers/http.js';
import { runKubectl } from '../helpers/kubectl.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';
import {
  G,
  countConfigMaps,
  createConfigMap,
  createHrq,
  createNamespace,
  getHrq,
  setParent,
  waitAncestors,
  waitUsed,
} from './hrq-helpers.js';

const PARALLEL = 40;
const LIMIT = 10;

describe('hierarchical resource quota (sqlite)', () => {
  let server: TestServer;
  let client: RestClient;
  let controllers: RunningControllerManager;
  before(async () => {
    server = await startTestServer();
    client = new RestClient({ server: server.url });
    controllers = startControllerManager({
      client,
      namespaceDeletionGracePeriodMs: 0,
      controllers: { systemNamespaces: false, garbageCollector: false },
    });
  });
  after(async () => {
    await controllers?.stop();
    await client?.close();
    await server?.stop();
  });

  test(`${PARALLEL} parallel creates over three namespaces of a subtree under an HRQ of ${LIMIT}: exactly ${LIMIT} succeed`, async () => {
    for (let round = 0; round < 5; round++) {
      const root = `burst-${round}`;
      const [a, b, c] = [`${root}-a`, `${root}-b`, `${root}-b-c`];
      await createNamespace(server.url, root);
      await createNamespace(server.url, a, root);
      await createNamespace(server.url, b, root);
      await createNamespace(server.url, c, b);
      await waitAncestors([server.hierarchy], c, [b, root]);
      await waitAncestors([server.hierarchy], a, [root]);
      await createHrq(server.url, root, 'q', { configmaps: String(LIMIT) });
      const spread = [a, b, c];
      const replies = await Promise.all(
        Array.from({ length: PARALLEL }, (_, i) => createConfigMap(server.url, spread[i % 3]!, `c${i}`)),
      );
      const created = replies.filter((r) => r.status === 201);
      assert.equal(created.length, LIMIT, `round ${round}: ${replies.map((r) => r.status).join(',')}`);
      for (const r of replies.filter((x) => x.status !== 201)) {
        assert.equal(r.status, 403, r.text);
        assert.equal(r.json.reason, 'Forbidden');
        assert.match(
          r.json.message,
          new RegExp(`^configmaps "c\\d+" is forbidden: exceeded hierarchical quota in namespace "${root}": "q", requested: configmaps=1, used: configmaps=${LIMIT}, limited: configmaps=${LIMIT}$`),
        );
      }
      assert.equal(await countConfigMaps(server.url, [root, ...spread]), LIMIT);
      assert.equal((await getHrq(server.url, root, 'q')).status?.used?.configmaps, String(LIMIT));
    }
  });

  test('status sums the subtree; the summaries kubectl prints; a namespace outside the subtree is not bounded', async () => {
    await createNamespace(server.url, 'sum');
    await createNamespace(server.url, 'sum-kid', 'sum');
    await createNamespace(server.url, 'sum-grandkid', 'sum-kid');
    await createNamespace(server.url, 'elsewhere');
    await waitAncestors([server.hierarchy], 'sum-grandkid', ['sum-kid', 'sum']);
    // Objects that exist before the HRQ are counted by the controller.
    for (const [ns, name] of [['sum', 'x'], ['sum-kid', 'y'], ['sum-grandkid', 'z'], ['elsewhere', 'w']] as const) {
      assert.equal((await createConfigMap(server.url, ns, name)).status, 201);
    }
    await createHrq(server.url, 'sum', 'q', { configmaps: '4', secrets: '5' });
    const q = await waitUsed(server.url, 'sum', 'q', { configmaps: '3', secrets: '0' });
    assert.deepEqual(q.status?.hard, { configmaps: '4', secrets: '5' });
    assert.equal(q.status?.requestsSummary, 'configmaps: 3/4, secrets: 0/5');
    assert.equal(q.status?.limitsSummary, undefined, 'empty summaries are omitted (omitempty)');
    // Admission charges it: one more fits, the next is refused.
    assert.equal((await createConfigMap(server.url, 'sum-grandkid', 'fits')).status, 201);
    const refused = await createConfigMap(server.url, 'sum-kid', 'too-many');
    assert.equal(refused.status, 403, refused.text);
    assert.equal(
      refused.json.message,
      'configmaps "too-many" is forbidden: exceeded hierarchical quota in namespace "sum": "q", requested: configmaps=1, used: configmaps=4, limited: configmaps=4',
    );
    const charged = await getHrq(server.url, 'sum', 'q');
    assert.equal(charged.status?.used?.configmaps, '4');
    assert.equal(charged.status?.requestsSummary, 'configmaps: 4/4, secrets: 0/5');
    // kubectl prints the summaries in HNC's columns.
    const printed = await runKubectl(server.kubeconfigPath, ['get', 'hrq', '-n', 'sum']);
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, /^NAME\s+REQUEST\s+LIMIT\nq\s+configmaps: 4\/4, secrets: 0\/5\s*\n$/);
    // Outside the subtree nothing is bounded.
    assert.equal((await createConfigMap(server.url, 'elsewhere', 'free')).status, 201);
  });

  test('an HRQ and a namespace ResourceQuota bound a create together; each refusal names its quota', async () => {
    await createNamespace(server.url, 'both');
    await createNamespace(server.url, 'both-kid', 'both');
    await waitAncestors([server.hierarchy], 'both-kid', ['both']);
    await createHrq(server.url, 'both', 'tree', { configmaps: '3' });
    const rq = await request(server.url, 'POST', '/api/v1/namespaces/both-kid/resourcequotas', {
      body: { metadata: { name: 'local' }, spec: { hard: { configmaps: '1' } } },
    });
    assert.equal(rq.status, 201, rq.text);
    await until('local quota status', async () => {
      const r = await request(server.url, 'GET', '/api/v1/namespaces/both-kid/resourcequotas/local');
      return r.json.status?.used?.configmaps === '0';
    });
    assert.equal((await createConfigMap(server.url, 'both-kid', 'one')).status, 201);
    const local = await createConfigMap(server.url, 'both-kid', 'two');
    assert.equal(local.status, 403);
    assert.equal(local.json.message, 'configmaps "two" is forbidden: exceeded quota: local, requested: configmaps=1, used: configmaps=1, limited: configmaps=1');
    assert.equal((await createConfigMap(server.url, 'both', 'two')).status, 201);
    assert.equal((await createConfigMap(server.url, 'both', 'three')).status, 201);
    const tree = await createConfigMap(server.url, 'both', 'four');
    assert.equal(tree.status, 403);
    assert.equal(
      tree.json.message,
      'configmaps "four" is forbidden: exceeded hierarchical quota in namespace "both": "tree", requested: configmaps=1, used: configmaps=3, limited: configmaps=3',
    );
    // The refused create in both-kid was charged to neither quota.
    assert.equal((await getHrq(server.url, 'both', 'tree')).status?.used?.configmaps, '3');
    // A dry run is checked, never charged.
    const dry = await request(server.url, 'POST', '/api/v1/namespaces/both/configmaps?dryRun=All', { body: { metadata: { name: 'dry' } } });
    assert.equal(dry.status, 403, dry.text);
  });

  test('an HRQ naming an unknown resource is refused with 422 and not stored', async () => {
    await createNamespace(server.url, 'bad-hrq');
    const r = await request(server.url, 'POST', `${G}/namespaces/bad-hrq/hierarchicalresourcequotas`, {
      body: { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchicalResourceQuota', metadata: { name: 'q' }, spec: { hard: { configmaps: '1', foobar: '1' } } },
    });
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json.reason, 'Invalid');
    assert.equal(
      r.json.message,
      // ResourceQuota's own validation, as HNC's webhook gets it from its dry-run ResourceQuota.
      'HierarchicalResourceQuota.hnc.x-k8s.io "q" is invalid: [spec.hard[foobar]: Invalid value: foobar: must be a standard resource type or fully qualified, spec.hard[foobar]: Invalid value: foobar: must be a standard resource for quota]',
    );
    assert.equal((await request(server.url, 'GET', `${G}/namespaces/bad-hrq/hierarchicalresourcequotas/q`)).status, 404);
  });

  test('usage is released when objects are deleted anywhere in the subtree', async () => {
    await createNamespace(server.url, 'rel');
    await createNamespace(server.url, 'rel-kid', 'rel');
    await waitAncestors([server.hierarchy], 'rel-kid', ['rel']);
    await createHrq(server.url, 'rel', 'q', { configmaps: '2' });
    assert.equal((await createConfigMap(server.url, 'rel-kid', 'a')).status, 201);
    assert.equal((await createConfigMap(server.url, 'rel', 'b')).status, 201);
    assert.equal((await createConfigMap(server.url, 'rel-kid', 'c')).status, 403);
    const del = await request(server.url, 'DELETE', '/api/v1/namespaces/rel-kid/configmaps/a');
    assert.equal(del.status, 200, del.text);
    await waitUsed(server.url, 'rel', 'q', { configmaps: '1' });
    assert.equal((await createConfigMap(server.url, 'rel-kid', 'c')).status, 201);
    await waitUsed(server.url, 'rel', 'q', { configmaps: '2' });
  });

  test('re-parenting moves a subtree\'s usage from the old ancestors\' HRQs to the new ones', async () => {
    await createNamespace(server.url, 'old');
    await createNamespace(server.url, 'new');
    await createNamespace(server.url, 'mover', 'old');
    await createNamespace(server.url, 'mover-kid', 'mover');
    await waitAncestors([server.hierarchy], 'mover-kid', ['mover', 'old']);
    await createHrq(server.url, 'old', 'q', { configmaps: '10' });
    await createHrq(server.url, 'new', 'q', { configmaps: '3' });
    assert.equal((await createConfigMap(server.url, 'mover', 'a')).status, 201);
    assert.equal((await createConfigMap(server.url, 'mover-kid', 'b')).status, 201);
    assert.equal((await createConfigMap(server.url, 'new', 'c')).status, 201);
    await waitUsed(server.url, 'old', 'q', { configmaps: '2' });
    await setParent(server.url, 'mover', 'new');
    await waitAncestors([server.hierarchy], 'mover-kid', ['mover', 'new']);
    await waitUsed(server.url, 'new', 'q', { configmaps: '3' });
    await waitUsed(server.url, 'old', 'q', { configmaps: '0' });
    // The moved subtree is now bounded by its new ancestor's HRQ.
    const refused = await createConfigMap(server.url, 'mover-kid', 'd');
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.json.message, /exceeded hierarchical quota in namespace "new": "q"/);
  });

  test('a subnamespace is bounded by its ancestors\' HRQs; deleting it releases its usage', async () => {
    await createNamespace(server.url, 'team');
    await createHrq(server.url, 'team', 'q', { configmaps: '3' });
    const anchor = await request(server.url, 'POST', `${G}/namespaces/team/subnamespaceanchors`, {
      body: { apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'SubnamespaceAnchor', metadata: { name: 'team-sub' } },
    });
    assert.equal(anchor.status, 201, anchor.text);
    await until('team-sub exists', async () => (await request(server.url, 'GET', '/api/v1/namespaces/team-sub')).status === 200);
    await waitAncestors([server.hierarchy], 'team-sub', ['team']);
    for (const name of ['a', 'b']) assert.equal((await createConfigMap(server.url, 'team-sub', name)).status, 201);
    assert.equal((await createConfigMap(server.url, 'team', 'c')).status, 201);
    const refused = await createConfigMap(server.url, 'team', 'd');
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.json.message, /exceeded hierarchical quota in namespace "team": "q", requested: configmaps=1, used: configmaps=3, limited: configmaps=3$/);
    // HNC: deleting the anchor deletes the subnamespace (and its objects); the usage goes with it.
    const del = await request(server.url, 'DELETE', `${G}/namespaces/team/subnamespaceanchors/team-sub`);
    assert.ok(del.status === 200 || del.status === 202, del.text);
    await waitUsed(server.url, 'team', 'q', { configmaps: '1' }, 30_000);
    assert.equal((await createConfigMap(server.url, 'team', 'd')).status, 201);
  });
});
