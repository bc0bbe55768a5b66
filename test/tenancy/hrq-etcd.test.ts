// HierarchicalResourceQuota across two apiary servers on one etcd 3.5: 40
// parallel creates spread over three namespaces of one subtree, alternating
// between the servers, under an HRQ of 10 → exactly 10 succeed (the
// compare-and-swap on the HRQ is etcd's), every refusal a 403 naming the HRQ.
// Needs etcd 3.5 (test/compat/etcd-3.5/bin/etcd, built by scripts/run-tests.mjs)
// or $ETCD_BIN; skipped without one.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { ETCD_35_PATH, etcd35Binary, startTwoServersOnEtcd, type TwoServers } from '../helpers/two-servers-etcd.js';
import { countConfigMaps, createConfigMap, createHrq, createNamespace, getHrq, waitAncestors, waitUsed } from './hrq-helpers.js';

const binary = etcd35Binary;
const PARALLEL = 40;
const LIMIT = 10;
const ROUNDS = 3;

describe('hierarchical resource quota on two servers sharing etcd 3.5', { timeout: 240_000 }, () => {
  let servers: TwoServers | undefined;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    if (binary === undefined) return;
    servers = await startTwoServersOnEtcd(binary, { namespace: false, systemNamespaces: false, garbageCollector: false });
    ({ a, b } = servers);
  });
  after(async () => {
    await servers?.stop();
  });

  test(`${PARALLEL} parallel creates over three namespaces and two servers under an HRQ of ${LIMIT}: exactly ${LIMIT} succeed`, async (t) => {
    if (binary === undefined) return t.skip(`no etcd 3.5 at ${ETCD_35_PATH} and no $ETCD_BIN`);
    const bases = [a.url, b.url];
    for (let round = 0; round < ROUNDS; round++) {
      const root = `two-${round}`;
      const spread = [`${root}-a`, `${root}-b`, `${root}-b-c`];
      await createNamespace(a.url, root);
      await createNamespace(a.url, spread[0]!, root);
      await createNamespace(b.url, spread[1]!, root);
      await createNamespace(b.url, spread[2]!, spread[1]);
      const hierarchies = [a.hierarchy, b.hierarchy];
      await waitAncestors(hierarchies, spread[0]!, [root]);
      await waitAncestors(hierarchies, spread[2]!, [spread[1]!, root]);
      await createHrq(a.url, root, 'q', { configmaps: String(LIMIT) });
      const replies = await Promise.all(
        Array.from({ length: PARALLEL }, (_, i) => createConfigMap(bases[i % 2]!, spread[i % 3]!, `c${i}`)),
      );
      const statuses = replies.map((r) => r.status).join(',');
      assert.equal(replies.filter((r) => r.status === 201).length, LIMIT, `round ${round}: ${statuses}`);
      for (const r of replies.filter((x) => x.status !== 201)) {
        assert.equal(r.status, 403, r.text);
        assert.match(
          r.json.message,
          new RegExp(`^configmaps "c\\d+" is forbidden: exceeded hierarchical quota in namespace "${root}": "q", requested: configmaps=1, used: configmaps=${LIMIT}, limited: configmaps=${LIMIT}$`),
        );
      }
      for (const base of bases) assert.equal(await countConfigMaps(base, [root, ...spread]), LIMIT);
      assert.equal((await getHrq(b.url, root, 'q')).status?.used?.configmaps, String(LIMIT));
    }
  });

  test('a delete through one server releases usage for creates through the other', async (t) => {
    if (binary === undefined) return t.skip(`no etcd 3.5 at ${ETCD_35_PATH} and no $ETCD_BIN`);
    await createNamespace(a.url, 'rel');
    await createNamespace(b.url, 'rel-kid', 'rel');
    await waitAncestors([a.hierarchy, b.hierarchy], 'rel-kid', ['rel']);
    await createHrq(a.url, 'rel', 'q', { configmaps: '1' });
    assert.equal((await createConfigMap(a.url, 'rel-kid', 'one')).status, 201);
    assert.equal((await createConfigMap(b.url, 'rel', 'two')).status, 403);
    assert.equal((await request(b.url, 'DELETE', '/api/v1/namespaces/rel-kid/configmaps/one')).status, 200);
    await waitUsed(b.url, 'rel', 'q', { configmaps: '0' });
    assert.equal((await createConfigMap(b.url, 'rel', 'two')).status, 201);
  });
});
