// EtcdBackend against a three-member etcd: losing the member a client and a
// watch are connected to costs at most a short pause, never an event.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { EtcdBackend } from '../../src/storage/etcd.js';
import { StorageError, type KeyValue, type WatchEvent } from '../../src/storage/interface.js';
import { retry } from '../helpers/wait.js';

let etcd: EtcdCluster;
before(async () => {
  etcd = await startEtcd({ members: 3 });
});
after(async () => {
  await etcd?.stop();
});

test('reads, writes and a watch carry on after the leader they use is killed', async (t) => {
  // Requests and the watch start on the first endpoint: make it the leader, the worst member to lose.
  const leader = await etcd.leader();
  const endpoints = [...etcd.endpoints.slice(leader), ...etcd.endpoints.slice(0, leader)];
  // A short deadline: a write proposed to a follower whose leader just died waits out etcd's own
  // request timeout (7 s with default flags) unless we give up first and retry.
  const b = await EtcdBackend.connect({ endpoints, requestTimeoutMs: 1500 });
  t.after(() => b.close());
  const p = `/registry/cluster-test-${process.pid}/`;
  const events: WatchEvent[] = [];
  let watchError: Error | undefined;
  const watch = b.watch(p, await b.currentRevision(), {
    onEvents: (e) => events.push(...e),
    onError: (err) => (watchError = err),
  });
  t.after(() => watch.cancel());

  const written: KeyValue[] = [await b.create(`${p}a`, 'a'), await b.create(`${p}b`, 'b')];
  const deadline = Date.now() + 5000;
  while (events.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  assert.equal(events.length, 2);

  await etcd.killMember(leader);
  const killedAt = Date.now();
  // A create that timed out may still have been applied: then the retry finds it (KeyExists).
  await retry(() =>
    b.create(`${p}c`, 'c').catch((err: unknown) => {
      if (!(err instanceof StorageError && err.code === 'KeyExists')) throw err;
    }),
    10_000, // while etcd elects a new leader
  );
  const c = (await b.get(`${p}c`)).kv;
  assert.equal(c?.value, 'c');
  written.push(c);
  written.push(await b.update(`${p}a`, 'a2'));
  t.diagnostic(`writes resumed ${Date.now() - killedAt} ms after the leader died`);
  assert.notEqual(await etcd.leader(), leader);

  const until = Date.now() + 10_000;
  while (events.length < 4 && !watchError && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(watchError, undefined);
  assert.deepEqual(
    events.map((e) => (e.type === 'put' ? e.kv.modRevision : e.revision)),
    written.map((kv) => kv.modRevision),
  );
});
