// Two apiary servers on one etcd (single member): a write through one is seen
// by consistent reads and watches on the other; optimistic concurrency holds
// across them (one winner per round, no lost update); both servers serve the
// same lists and the same watch streams for a mixed burst of writes through
// both.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/machinery/meta.js';
import { isConflict } from '../../src/machinery/errors.js';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { collect, ensureNamespace, startApiaryOnEtcd, summary, type ApiaryOnEtcd } from './helpers.js';
import { until } from '../helpers/wait.js';

type ConfigMap = KubeObject & { data?: Record<string, string> };

const NS = 'multi';
const T = () => ({ signal: AbortSignal.timeout(10_000) });

let etcd: EtcdCluster;
let a: ApiaryOnEtcd;
let b: ApiaryOnEtcd;

before(async () => {
  etcd = await startEtcd();
  a = await startApiaryOnEtcd(etcd.endpoints);
  b = await startApiaryOnEtcd(etcd.endpoints);
  await ensureNamespace(a.client, NS);
});
after(async () => {
  await Promise.allSettled([a?.stop(), b?.stop()]);
  await etcd?.stop();
});

describe('two apiary servers on one etcd', () => {
  test('a write through one is visible to a consistent read, a list and a watch on the other', async () => {
    const start = await b.client.configMaps<ConfigMap>(NS).list(T());
    const watchB = collect(await b.client.configMaps<ConfigMap>(NS).watch({ resourceVersion: start.metadata?.resourceVersion, ...T() }));
    try {
      const created = await a.client.configMaps<ConfigMap>(NS).create({ metadata: { name: 'seen' }, data: { v: '1' } }, T());
      // No resourceVersion: a consistent read, served from etcd at its current revision.
      const got = await b.client.configMaps<ConfigMap>(NS).get('seen', T());
      assert.equal(got.metadata?.resourceVersion, created.metadata?.resourceVersion);
      assert.equal(got.metadata?.uid, created.metadata?.uid);
      assert.deepEqual(got.data, { v: '1' });
      const listed = await b.client.configMaps<ConfigMap>(NS).list(T());
      assert.deepEqual(
        listed.items.map((i) => i.metadata?.name),
        ['seen'],
      );
      assert.ok(Number(listed.metadata?.resourceVersion) >= Number(created.metadata?.resourceVersion));

      const updated = await a.client.configMaps<ConfigMap>(NS).update({ ...created, data: { v: '2' } }, T());
      await a.client.configMaps<ConfigMap>(NS).delete('seen', T());
      await until('three events on b', () => watchB.events.filter((e) => e.type !== 'BOOKMARK').length >= 3, 5000);
      assert.deepEqual(summary(watchB.events), [
        `ADDED seen ${created.metadata?.resourceVersion}`,
        `MODIFIED seen ${updated.metadata?.resourceVersion}`,
        // A DELETED event carries the deletion's revision, newer than the last update.
        `DELETED seen ${(watchB.events.at(-1)?.object as KubeObject).metadata?.resourceVersion}`,
      ]);
      const deletedRv = Number((watchB.events.at(-1)?.object as KubeObject).metadata?.resourceVersion);
      assert.ok(deletedRv > Number(updated.metadata?.resourceVersion));
    } finally {
      watchB.stop();
      await watchB.ended;
    }
  });

  test('concurrent updates of one object through both: exactly one wins each round', async () => {
    const cms = { a: a.client.configMaps<ConfigMap>(NS), b: b.client.configMaps<ConfigMap>(NS) };
    await cms.a.create({ metadata: { name: 'race' }, data: { counter: '0' } }, T());
    const rounds = 15;
    for (let round = 0; round < rounds; round++) {
      const seen = await (round % 2 === 0 ? cms.a : cms.b).get('race', T());
      const next = { ...seen, data: { counter: String(Number(seen.data?.counter) + 1) } };
      // Both servers get the same resourceVersion at the same time.
      const results = await Promise.allSettled([cms.a.update(next, T()), cms.b.update(next, T())]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      assert.equal(won.length, 1, `round ${round}: ${won.length} winners`);
      assert.equal(lost.length, 1);
      assert.ok(isConflict(lost[0]!.reason), `round ${round}: loser failed with ${String(lost[0]!.reason)}`);
    }
    const final = await cms.b.get('race', T());
    assert.equal(final.data?.counter, String(rounds));
  });

  test('read-modify-write loops through both servers lose no increment', async () => {
    const cms = [a.client.configMaps<ConfigMap>(NS), b.client.configMaps<ConfigMap>(NS)];
    await cms[0]!.create({ metadata: { name: 'counter' }, data: { n: '0' } }, T());
    const perServer = 20;
    const loop = async (cm: (typeof cms)[number]): Promise<number> => {
      let successes = 0;
      while (successes < perServer) {
        const seen = await cm.get('counter', T());
        try {
          await cm.update({ ...seen, data: { n: String(Number(seen.data?.n) + 1) } }, T());
          successes++;
        } catch (err) {
          // A conflict means the other server's increment landed first: read again.
          if (!isConflict(err)) throw err;
        }
      }
      return successes;
    };
    const successes = await Promise.all(cms.map(loop));
    const total = successes.reduce((x, y) => x + y, 0);
    const final = await cms[1]!.get('counter', T());
    assert.equal(final.data?.n, String(total));
    assert.equal(total, 2 * perServer);
  });

  test('both servers serve the same list and the same watch stream for writes through both', async () => {
    const from = (await a.client.configMaps<ConfigMap>(NS).list(T())).metadata?.resourceVersion;
    const watches = [a, b].map(async (s) => collect(await s.client.configMaps<ConfigMap>(NS).watch({ resourceVersion: from, ...T() })));
    const [wa, wb] = await Promise.all(watches);
    try {
      let lastRv = '';
      let writes = 0;
      for (let i = 0; i < 12; i++) {
        const via = i % 2 === 0 ? a : b;
        const cm = via.client.configMaps<ConfigMap>(NS);
        const created = await cm.create({ metadata: { name: `burst-${i}` }, data: { i: String(i) } }, T());
        lastRv = created.metadata!.resourceVersion!;
        writes++;
        if (i % 3 === 0) {
          // Update through the other server.
          const other = (via === a ? b : a).client.configMaps<ConfigMap>(NS);
          lastRv = (await other.update({ ...created, data: { i: `${i}-updated` } }, T())).metadata!.resourceVersion!;
          writes++;
        }
        if (i % 4 === 1) {
          await cm.delete(`burst-${i}`, T());
          writes++;
        }
      }
      await until('every event on both watches', () =>
        [wa!, wb!].every((w) => w.events.filter((e) => e.type !== 'BOOKMARK').length >= writes), 10_000);
      assert.deepEqual(summary(wb!.events), summary(wa!.events));
      assert.equal(summary(wa!.events).length, writes);

      // Lists at least as new as the last write agree, item for item, on both servers.
      const listAt = async (s: ApiaryOnEtcd, rv: string): Promise<string[]> =>
        (await s.client.configMaps<ConfigMap>(NS).list(rv === '0' ? { resourceVersion: rv, ...T() } : { resourceVersion: rv, resourceVersionMatch: 'NotOlderThan', ...T() })).items
          .filter((i) => i.metadata?.name?.startsWith('burst-'))
          .map((i) => `${i.metadata?.name} ${i.metadata?.resourceVersion} ${i.data?.i}`);
      const listA = await listAt(a, lastRv);
      const listB = await listAt(b, lastRv);
      assert.deepEqual(listB, listA);
      assert.equal(listA.length, 12 - 3); // burst-1, -5, -9 were deleted
      // And the same through the "any version" path (served from a cache where there is one).
      await until('rv=0 lists to agree', async () => {
        const [x, y] = await Promise.all([listAt(a, '0'), listAt(b, '0')]);
        return JSON.stringify(x) === JSON.stringify(listA) && JSON.stringify(y) === JSON.stringify(listA);
      }, 5000);
    } finally {
      wa?.stop();
      wb?.stop();
      await Promise.all([wa?.ended, wb?.ended]);
    }
  });
});
