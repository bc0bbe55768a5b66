// Quotas hold under concurrency: 50 parallel creates against
// count/configmaps=10 leave exactly 10 configmaps and status.used = 10, and
// every refused create is a 403 with the quota message; 20 rounds, each in a
// fresh namespace. Then the same with the creates spread over two apiary
// servers on one etcd (the compare-and-swap on status.used is in etcd).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from '../helpers/http.js';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { RestClient } from '../../src/client/index.js';
import { type RunningControllerManager, startControllerManager } from '../../src/controllers/manager.js';
import { createNamespace, createQuota, getQuota, startQuotaCluster, type QuotaCluster } from './helpers.js';

const ROUNDS = 20;
const PARALLEL = 50;
const LIMIT = 10;
const REFUSAL = new RegExp(
  `^configmaps "c\\d+" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=${LIMIT}, limited: count/configmaps=${LIMIT}$`,
);

/** One round: fresh namespace and quota, PARALLEL creates spread over `bases`; checks the outcome. */
async function round(bases: string[], ns: string): Promise<void> {
  await createNamespace(bases[0]!, ns);
  await createQuota(bases[0]!, ns, 'q', { hard: { 'count/configmaps': String(LIMIT) } });
  const replies = await Promise.all(
    Array.from({ length: PARALLEL }, (_, i) =>
      request(bases[i % bases.length]!, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: `c${i}` }, data: { i: String(i) } } }),
    ),
  );
  const created = replies.filter((r) => r.status === 201);
  const refused = replies.filter((r) => r.status !== 201);
  assert.equal(created.length, LIMIT, `created in ${ns}`);
  for (const r of refused) {
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.reason, 'Forbidden');
    assert.match(r.json.message, REFUSAL);
  }
  for (const base of bases) {
    const list = await request(base, 'GET', `/api/v1/namespaces/${ns}/configmaps`);
    assert.equal(list.json.items.length, LIMIT);
  }
  assert.equal((await getQuota(bases[0]!, ns, 'q')).status?.used?.['count/configmaps'], String(LIMIT));
}

describe('one server', () => {
  let c: QuotaCluster;
  before(async () => {
    c = await startQuotaCluster();
  });
  after(async () => {
    await c?.stop();
  });

  test(`${PARALLEL} parallel creates against count/configmaps=${LIMIT}, ${ROUNDS} times`, async () => {
    for (let r = 0; r < ROUNDS; r++) await round([c.server.url], `burst-${r}`);
  });
});

describe('two servers on one etcd', () => {
  let etcd: EtcdCluster;
  let a: TestServer;
  let b: TestServer;
  let client: RestClient;
  let controllers: RunningControllerManager;
  before(async () => {
    etcd = await startEtcd();
    a = await startTestServer({ storage: 'etcd', etcdServers: etcd.endpoints });
    b = await startTestServer({ storage: 'etcd', etcdServers: etcd.endpoints });
    client = new RestClient({ server: a.url });
    controllers = startControllerManager({ client, controllers: { namespace: false, systemNamespaces: false, resourceQuota: true } });
  });
  after(async () => {
    await controllers?.stop();
    await client?.close();
    await Promise.allSettled([a?.stop(), b?.stop()]);
    await etcd?.stop();
  });

  test(`${PARALLEL} parallel creates through both against count/configmaps=${LIMIT}, ${ROUNDS} times`, async () => {
    for (let r = 0; r < ROUNDS; r++) await round([a.url, b.url], `split-${r}`);
  });
});
