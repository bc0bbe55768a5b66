// Linearizable consistent reads across two apiary servers on one etcd 3.5
// (issue 30, part 1): apiary serves GET and LIST without resourceVersion from
// its watch cache once the cache has seen etcd's current revision. A write
// acknowledged by server A must be visible to a consistent GET and LIST on
// server B started after the acknowledgement, while both servers are under
// write and read load, every time (100 rounds).
//
// Needs an etcd whose progress notifications are trusted (3.5.13+):
// test/compat/etcd-3.5/bin/etcd (scripts/run-tests.mjs builds it), or $ETCD_BIN.
// With an older etcd apiary reads etcd directly and the test is skipped.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../../src/machinery/meta.js';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { ensureNamespace, startApiaryOnEtcd, type ApiaryOnEtcd } from './helpers.js';

type ConfigMap = KubeObject & { data?: Record<string, string> };

const ETCD_35 = fileURLToPath(new URL('../compat/etcd-3.5/bin/etcd', import.meta.url));
const binary = process.env.ETCD_BIN ?? (existsSync(ETCD_35) ? ETCD_35 : undefined);
const NS = 'linear';
const T = () => ({ signal: AbortSignal.timeout(20_000) });

let etcd: EtcdCluster;
let a: ApiaryOnEtcd;
let b: ApiaryOnEtcd;

before(async () => {
  if (binary === undefined) return;
  etcd = await startEtcd({ binary });
  a = await startApiaryOnEtcd(etcd.endpoints);
  b = await startApiaryOnEtcd(etcd.endpoints);
  await ensureNamespace(a.client, NS);
});
after(async () => {
  await Promise.allSettled([a?.stop(), b?.stop()]);
  await etcd?.stop();
});

describe('consistent reads across two servers on etcd 3.5', { timeout: 180_000 }, () => {
  test('a write acknowledged by A is seen by a consistent GET and LIST on B started after it, under load, 100 times', async (t) => {
    if (binary === undefined) return t.skip(`no etcd 3.5 at ${ETCD_35} and no $ETCD_BIN`);
    const onA = a.client.configMaps<ConfigMap>(NS);
    const onB = b.client.configMaps<ConfigMap>(NS);
    let running = true;
    let n = 0;
    // Load: writes through A to other objects (etcd's revision moves on), lists and gets on B.
    const load = [
      ...Array.from({ length: 2 }, async (_, w) => {
        while (running) await a.client.secrets(NS).create({ metadata: { name: `load-${w}-${n++}` } } as KubeObject, T());
      }),
      ...Array.from({ length: 2 }, async () => {
        while (running) await onB.list(T());
      }),
    ];
    try {
      let current = await onA.create({ metadata: { name: 'k' }, data: { i: '-1' } }, T());
      for (let i = 0; i < 100; i++) {
        current = await onA.update({ ...current, data: { i: String(i) } }, T());
        const ackedRv = Number(current.metadata?.resourceVersion);
        const [got, listed] = await Promise.all([onB.get('k', T()), onB.list(T())]);
        assert.equal(got.data?.i, String(i), `round ${i}: GET on B sees A's acknowledged write`);
        assert.equal(got.metadata?.resourceVersion, current.metadata?.resourceVersion);
        const item = listed.items.find((o) => o.metadata?.name === 'k');
        assert.equal(item?.data?.i, String(i), `round ${i}: LIST on B sees A's acknowledged write`);
        assert.ok(Number(listed.metadata?.resourceVersion) >= ackedRv, `round ${i}: list rv ${listed.metadata?.resourceVersion} >= ${ackedRv}`);
      }
    } finally {
      running = false;
      await Promise.allSettled(load);
    }
    t.diagnostic(`${n} load writes`);
  });
});
