// Consistent reads (no resourceVersion) on etcd served from the watch cache
// (issue 30, part 1): two stores on two etcd clients stand for two apiary
// servers. A write acknowledged through the first is seen by a consistent GET
// and LIST through the second started after the acknowledgement, under write
// and read load, every time; concurrent reads share their etcd revision read;
// a resource nobody writes answers at once (a progress notification, not a
// wait). The readers' cache wait is 30 s, so an answer within seconds came
// from the cache, not from the fallback to etcd.
//
// Needs an etcd whose progress notifications are trusted (3.5.13+, 3.4.31+):
// test/compat/etcd-3.5/bin/etcd (built by scripts/run-tests.mjs), or $ETCD_BIN.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { ThreadedEtcdBackend } from '../../src/storage/etcd/thread.js';
import { CachedObjectStore } from '../../src/storage/cacher/cacher.js';
import { revisionCheckFor } from '../../src/storage/cacher/revision-check.js';
import { BackendObjectStore } from '../../src/storage/object-store.js';
import { isNotFound } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/meta.js';

const ETCD_35 = fileURLToPath(new URL('../compat/etcd-3.5/bin/etcd', import.meta.url));
const binary = process.env.ETCD_BIN ?? (existsSync(ETCD_35) ? ETCD_35 : 'etcd');

let etcd: EtcdCluster;
let b1: ThreadedEtcdBackend;
let b2: ThreadedEtcdBackend;

before(async () => {
  etcd = await startEtcd({ binary });
  b1 = await ThreadedEtcdBackend.connect({ endpoints: etcd.endpoints });
  b2 = await ThreadedEtcdBackend.connect({ endpoints: etcd.endpoints });
});
after(async () => {
  await b1?.close();
  await b2?.close();
  await etcd?.stop();
});

function cached(backend: ThreadedEtcdBackend, resource: string): CachedObjectStore {
  return new CachedObjectStore({ backend, resource: { group: '', resource }, namespaced: true, cache: { waitTimeoutMs: 30_000 } });
}

const cm = (name: string, data: Record<string, string>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data }) as KubeObject;

const dataI = (o: KubeObject): unknown => (o.data as Record<string, string> | undefined)?.i;

/** Writes through b1 to another resource until stopped: etcd's revision keeps moving past the read resource's. */
function writeLoad(): { stop(): Promise<number> } {
  const other = new BackendObjectStore({ backend: b1, resource: { group: '', resource: 'secrets' }, namespaced: true });
  let running = true;
  let n = 0;
  const loops = Array.from({ length: 4 }, async (_, w) => {
    while (running) await other.create('ns', `load-${w}-${n++}`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x', namespace: 'ns' } } as KubeObject);
  });
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return n;
    },
  };
}

describe('consistent reads from the watch cache on etcd', { timeout: 180_000 }, () => {
  test('a write acknowledged through server 1 is seen by consistent GET and LIST on server 2, under load, 200 times', async (t) => {
    if (!b2.consistentProgress) return t.skip(`${binary}: this etcd's progress notifications are not trusted (needs 3.5.13+)`);
    const s1 = cached(b1, 'configmaps');
    const s2 = cached(b2, 'configmaps');
    await s1.start();
    await s2.start();
    t.after(() => {
      s1.stop();
      s2.stop();
    });
    const load = writeLoad();
    // Readers on server 2 meanwhile, so checks are often in flight when a verifying read arrives.
    let reading = true;
    let background = 0;
    const readers = Array.from({ length: 4 }, async () => {
      while (reading) {
        await s2.list('ns', {});
        background++;
        await new Promise((r) => setImmediate(r)); // never starve the loop, even if a list needed no I/O
      }
    });
    const checksBefore = revisionCheckFor(b2).reads;
    let consistentReads = 0;
    try {
      await s1.create('ns', 'k', cm('k', { i: '-1' }));
      for (let i = 0; i < 200; i++) {
        const { object: acked } = await s1.guaranteedUpdate('ns', 'k', (cur) => ({ ...cur, data: { i: String(i) } }) as KubeObject);
        const ackedRv = Number(acked.metadata.resourceVersion);
        const started = Date.now();
        const [g1, g2, l1, l2] = await Promise.all([s2.get('ns', 'k'), s2.get('ns', 'k'), s2.list('ns', {}), s2.list('', {})]);
        consistentReads += 4;
        assert.ok(Date.now() - started < 10_000, `round ${i}: served from the cache, not after its 30 s wait`);
        for (const g of [g1, g2]) {
          assert.equal(dataI(g), String(i), `round ${i}: GET sees the acknowledged write`);
          assert.ok(Number(g.metadata.resourceVersion) >= ackedRv);
        }
        for (const l of [l1, l2]) {
          const item = l.items.find((o) => o.metadata.name === 'k');
          assert.equal(item === undefined ? undefined : dataI(item), String(i), `round ${i}: LIST sees the acknowledged write`);
          assert.ok(Number(l.resourceVersion) >= ackedRv, `round ${i}: list rv ${l.resourceVersion} >= ${ackedRv}`);
        }
      }
    } finally {
      reading = false;
      await Promise.all(readers);
      const writes = await load.stop();
      t.diagnostic(`background: ${writes} writes, ${background} lists`);
    }
    const checks = revisionCheckFor(b2).reads - checksBefore;
    const total = consistentReads + background;
    t.diagnostic(`${total} consistent reads, ${checks} etcd revision reads`);
    assert.ok(checks < total, `concurrent reads share revision reads (${checks} for ${total} reads)`);
  });

  test('a resource nobody writes answers consistent reads at once while others write', async (t) => {
    if (!b2.consistentProgress) return t.skip(`${binary}: this etcd's progress notifications are not trusted (needs 3.5.13+)`);
    const idle = cached(b2, 'idles');
    await idle.start();
    t.after(() => idle.stop());
    const other = new BackendObjectStore({ backend: b1, resource: { group: '', resource: 'secrets' }, namespaced: true });
    for (let i = 0; i < 30; i++) {
      await other.create('ns', `idle-round-${i}`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x', namespace: 'ns' } } as KubeObject);
      const started = Date.now();
      await assert.rejects(idle.get('ns', 'nothing'), (err: unknown) => isNotFound(err));
      const list = await idle.list('ns', {});
      assert.deepEqual(list.items, []);
      assert.ok(Date.now() - started < 2000, `round ${i}: answered in ${Date.now() - started} ms (the cache waits up to 30 s)`);
      assert.ok(Number(list.resourceVersion) > 0);
    }
  });
});
