// EtcdBackend against a real single-member etcd: the Backend conformance suite,
// then what only etcd does — lease expiry, compaction through the coordinated
// compactor, watches that survive an etcd restart, and bounded failure while
// etcd is down or frozen. One etcd serves the whole file (the conformance suite
// keeps tests apart with per-test key prefixes); the fault tests run last, in
// order, because they stop and restart it.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { execFileSync } from 'node:child_process';
import { EtcdBackend, progressFixedIn } from '../../src/storage/etcd.js';
import { startCompactor } from '../../src/storage/compactor.js';
import { StorageError, prefixEnd, type WatchEvent } from '../../src/storage/interface.js';
import { openBackend } from '../../src/storage/open.js';
import { ThreadedEtcdBackend } from '../../src/storage/etcd/thread.js';
import { runBackendConformance } from './conformance.js';
import { until } from '../helpers/wait.js';

let etcd: EtcdCluster;

before(async () => {
  // Progress notifications every second, so the progress test does not wait etcd's default 10 minutes.
  etcd = await startEtcd({ extraArgs: ['--experimental-watch-progress-notify-interval=1s'] });
});
after(async () => {
  await etcd?.stop();
});

function connect(options: { requestTimeoutMs?: number; watchRetryWindowMs?: number } = {}): Promise<EtcdBackend> {
  return EtcdBackend.connect({ endpoints: etcd.endpoints, ...options });
}

let prefixCounter = 0;
function uniquePrefix(name: string): string {
  return `/registry/etcd-test-${process.pid}-${++prefixCounter}-${name}/`;
}

function revisionOf(event: WatchEvent): number {
  return event.type === 'put' ? event.kv.modRevision : event.revision;
}

runBackendConformance('etcd', async () => {
  const backend = await connect();
  return { backend, cleanup: () => backend.close() };
});

// What `apiary serve --storage etcd` runs: the same client on a worker thread.
runBackendConformance('etcd (client thread)', async () => {
  const backend = await ThreadedEtcdBackend.connect({ endpoints: etcd.endpoints });
  return { backend, cleanup: () => backend.close() };
});

describe('etcd client thread', () => {
  test('answers and watch events cross the thread as the client itself gives them: leases, prevKv, deletes, missing keys', async (t) => {
    const direct = await connect();
    const threaded = await ThreadedEtcdBackend.connect({ endpoints: etcd.endpoints });
    t.after(async () => {
      await direct.close();
      await threaded.close();
    });
    const p = uniquePrefix('thread-records');
    const from = await threaded.currentRevision();
    const seen = { direct: [] as WatchEvent[], threaded: [] as WatchEvent[] };
    const w1 = direct.watch(p, from, { onEvents: (e) => seen.direct.push(...e), onError: () => {} });
    const w2 = threaded.watch(p, from, { onEvents: (e) => seen.threaded.push(...e), onError: () => {} });
    t.after(() => {
      w1.cancel();
      w2.cancel();
    });
    const leased = await threaded.create(`${p}leased`, 'with a lease', { ttlSeconds: 100 });
    const plain = await threaded.create(`${p}plain`, '{"ünïcode":"✓"}');
    const updated = await threaded.update(`${p}plain`, 'second', plain.modRevision);
    const unguarded = await threaded.update(`${p}leased`, 'unguarded', undefined, { ttlSeconds: 100 });
    await threaded.delete(`${p}plain`, updated.modRevision);
    // A write answers with the key, value and revisions (as EtcdBackend's own answer, without the lease).
    const stored = async (key: string, revision: number) => {
      const { lease: _lease, ...kv } = (await direct.get(key, { revision })).kv!;
      return kv;
    };
    assert.deepEqual(leased, await stored(`${p}leased`, leased.modRevision));
    assert.deepEqual(unguarded, await stored(`${p}leased`, unguarded.modRevision));
    assert.deepEqual(updated, await stored(`${p}plain`, updated.modRevision));
    const read = await threaded.get(`${p}leased`);
    assert.ok(read.kv?.lease, 'a read carries the lease');
    assert.deepEqual(read, await direct.get(`${p}leased`));
    assert.deepEqual(await threaded.get(`${p}plain`), await direct.get(`${p}plain`), 'a deleted key: kv null, the revision read at');
    assert.deepEqual(await threaded.get(`${p}leased`, { revision: plain.modRevision }), await direct.get(`${p}leased`, { revision: plain.modRevision }));
    assert.equal(await threaded.currentRevision(), await direct.currentRevision());
    await until('both watches to see the five writes', () => seen.direct.length === 5 && seen.threaded.length === 5, 5000);
    assert.deepEqual(seen.threaded, seen.direct);
    assert.deepEqual(
      seen.threaded.map((e) => e.type + (e.prevKv ? '+prev' : '')),
      ['put', 'put', 'put+prev', 'put+prev', 'delete+prev'],
    );
  });

  test('a dead client thread fails pending and later calls with Unavailable and ends watches', async () => {
    const b = await ThreadedEtcdBackend.connect({ endpoints: etcd.endpoints });
    const p = uniquePrefix('thread-death');
    const errors: StorageError[] = [];
    b.watch(p, await b.currentRevision(), { onEvents: () => {}, onError: (err) => errors.push(err) });
    const pending = b.create(`${p}k`, 'v');
    // The thread's death, as an uncaught fault in it would end it.
    await (b as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await assert.rejects(pending, (err: unknown) => err instanceof StorageError && err.code === 'Unavailable');
    await assert.rejects(b.get(`${p}k`), (err: unknown) => err instanceof StorageError && err.code === 'Unavailable');
    await until('the watch to end', () => errors.length === 1, 2000);
    assert.equal(errors[0]?.code, 'Unavailable');
    await b.close();
  });

  test('close() ends watches without calling them and fails later calls', async () => {
    const b = await ThreadedEtcdBackend.connect({ endpoints: etcd.endpoints });
    const p = uniquePrefix('thread-close');
    let calls = 0;
    b.watch(p, await b.currentRevision(), { onEvents: () => calls++, onError: () => calls++ });
    await b.create(`${p}k`, 'v');
    await until('the event', () => calls === 1, 2000);
    await b.close();
    await assert.rejects(b.create(`${p}k2`, 'v'), (err: unknown) => err instanceof StorageError && err.code === 'Unavailable');
    assert.equal(calls, 1);
  });

  test('connect() to an etcd that does not answer fails Unavailable', async () => {
    await assert.rejects(
      ThreadedEtcdBackend.connect({ endpoints: ['http://127.0.0.1:1'], dialTimeoutMs: 500 }),
      (err: unknown) => err instanceof StorageError && err.code === 'Unavailable',
    );
  });
});

describe('etcd specifics', () => {
  test("openBackend({ kind: 'etcd' }) connects to --etcd-servers", async (t) => {
    const b = await openBackend({ kind: 'etcd', etcdServers: etcd.endpoints });
    t.after(() => b.close());
    const p = uniquePrefix('open');
    const kv = await b.create(`${p}k`, 'v');
    assert.equal((await b.get(`${p}k`)).kv?.modRevision, kv.modRevision);
  });

  test('a key written with a TTL expires through its lease and watchers see the DELETE', async (t) => {
    const b = await connect();
    t.after(() => b.close());
    const p = uniquePrefix('lease');
    const events: WatchEvent[] = [];
    const watch = b.watch(p, await b.currentRevision(), { onEvents: (e) => events.push(...e), onError: () => {} });
    t.after(() => watch.cancel());
    const created = await b.create(`${p}event-1`, 'short-lived', { ttlSeconds: 1 });
    await b.create(`${p}kept`, 'no ttl');
    assert.ok((await b.get(`${p}event-1`)).kv?.lease, 'the key carries a lease');
    await until('the lease to expire', () => events.some((e) => e.type === 'delete'), 6000);
    const deletion = events.find((e) => e.type === 'delete');
    assert.equal(deletion?.type === 'delete' ? deletion.key : '', `${p}event-1`);
    assert.equal(deletion?.type === 'delete' ? deletion.prevKv.value : '', 'short-lived');
    assert.ok(deletion && revisionOf(deletion) > created.modRevision);
    assert.equal((await b.get(`${p}event-1`)).kv, null);
    assert.equal((await b.get(`${p}kept`)).kv?.value, 'no ttl');
  });

  test('keys with the same TTL share one lease', async (t) => {
    const b = await connect();
    t.after(() => b.close());
    const p = uniquePrefix('lease-reuse');
    // A 100 s TTL has a 5 s reuse window, so writes within it share a lease.
    await Promise.all(Array.from({ length: 5 }, (_, i) => b.create(`${p}e${i}`, 'v', { ttlSeconds: 100 })));
    const listed = await b.range(p, prefixEnd(p));
    const leases = new Set(listed.kvs.map((kv) => kv.lease));
    assert.equal(listed.kvs.length, 5);
    assert.equal(leases.size, 1);
    assert.ok([...leases][0]);
  });

  test('progress is trusted only from etcd releases that never notify ahead of undelivered events', () => {
    const table: [string, boolean][] = [
      ['3.4.23', false],
      ['3.4.31', true],
      ['3.5.12', false],
      ['3.5.13', true],
      ['3.6.0', true],
      ['2.3.8', false],
      ['', false],
    ];
    for (const [version, fixed] of table) assert.equal(progressFixedIn(version), fixed, version);
  });

  test('progress notifications reach a quiet watch when this etcd is trusted, and never otherwise', async (t) => {
    const b = await connect();
    t.after(() => b.close());
    const version = /etcd Version: (\S+)/.exec(execFileSync(process.env.ETCD_BIN ?? 'etcd', ['--version']).toString())?.[1] ?? '';
    assert.equal(b.consistentProgress, progressFixedIn(version), `etcd ${version}`);
    const p = uniquePrefix('progress');
    await b.create(`${uniquePrefix('elsewhere')}x`, 'outside the watched prefix');
    const current = await b.currentRevision();
    const progress: number[] = [];
    const events: string[] = [];
    const watch = b.watch(p, current, {
      onEvents: (batch) => events.push(...batch.map((e) => (e.type === 'put' ? e.kv.key : e.key))),
      onProgress: (rev) => progress.push(rev),
      onError: (err) => assert.fail(err),
    });
    t.after(() => watch.cancel());
    if (b.consistentProgress) {
      await until('a progress notification', () => progress.length > 0, 4000);
      assert.ok(progress[0]! >= current, `progress ${progress[0]} >= ${current}`);
      const before = progress.length;
      watch.requestProgress();
      await until('a requested progress notification', () => progress.length > before, 2000);
    } else {
      // etcd notifies every second here (see before()): none may reach the handler.
      watch.requestProgress();
      await new Promise((r) => setTimeout(r, 2500));
      assert.deepEqual(progress, []);
    }
    await b.create(`${p}after`, 'v');
    await until('the event after the quiet time', () => events.length === 1, 4000);
    assert.deepEqual(events, [`${p}after`]);
  });

  test('the compactor compacts to the revision seen one interval ago; old reads then fail Compacted', async (t) => {
    const a = await connect();
    const b = await connect();
    t.after(() => Promise.all([a.close(), b.close()]));
    const p = uniquePrefix('compactor');
    const old = await a.create(`${p}k`, 'v1');
    await a.update(`${p}k`, 'v2');
    // Two servers on one etcd: the election on compact_rev_key lets one compact per interval.
    const compactors = [startCompactor(a, { intervalMs: 150 }), startCompactor(b, { intervalMs: 150 })];
    t.after(() => compactors.forEach((c) => c.stop()));
    const target = await a.currentRevision();
    // waitUntil polls a sync predicate; the compaction point is refreshed in the background.
    let compactedAtLeast = 0;
    const poll = setInterval(() => {
      a.compactedRevision().then(
        (r) => (compactedAtLeast = r),
        () => {}, // closed at the end of the test
      );
    }, 50);
    t.after(() => clearInterval(poll));
    await until('compaction past the old revision', () => compactedAtLeast >= target, 5000);
    const err = await a.get(`${p}k`, { revision: old.modRevision }).then(
      () => assert.fail('expected Compacted'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof StorageError && err.code === 'Compacted', String(err));
    assert.ok((err.revision ?? 0) >= target);
    assert.equal((await b.get(`${p}k`)).kv?.value, 'v2');
  });
});

// These stop the shared etcd, so they run after everything above, one at a time.
describe('etcd faults', () => {
  test('a watch survives an etcd restart and resumes with no lost or duplicate events', async (t) => {
    const b = await connect();
    t.after(() => b.close());
    const p = uniquePrefix('restart');
    const events: WatchEvent[] = [];
    let error: StorageError | undefined;
    const watch = b.watch(p, await b.currentRevision(), {
      onEvents: (e) => events.push(...e),
      onError: (err) => (error = err),
    });
    t.after(() => watch.cancel());
    const written = [await b.create(`${p}a`, 'a'), await b.create(`${p}b`, 'b')];
    await until('the first two events', () => events.length === 2, 5000);

    await etcd.killMember(0);
    await etcd.restartMember(0);
    // Written at once: the watch is most likely still reconnecting, so these arrive by replay.
    written.push(await b.create(`${p}c`, 'c'));
    written.push(await b.update(`${p}a`, 'a2'));
    await until('the events written after the restart', () => events.length >= 4 || error !== undefined, 8000);
    written.push(await b.create(`${p}d`, 'd'));
    await until('a live event after reconnecting', () => events.length >= 5 || error !== undefined, 5000);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(error, undefined);
    assert.deepEqual(events.map(revisionOf), written.map((kv) => kv.modRevision));
    const update = events[3];
    assert.equal(update.type === 'put' ? update.prevKv?.value : undefined, 'a');
  });

  test('requests fail with Unavailable within the deadline while etcd is down, and work again after', async (t) => {
    const b = await connect({ requestTimeoutMs: 800 });
    t.after(() => b.close());
    const p = uniquePrefix('down');
    await b.create(`${p}k`, 'v');

    async function failsFast(what: string, op: () => Promise<unknown>): Promise<void> {
      const started = Date.now();
      const err = await op().then(
        () => assert.fail(`${what} succeeded while etcd is unavailable`),
        (e: unknown) => e,
      );
      const took = Date.now() - started;
      assert.ok(err instanceof StorageError && err.code === 'Unavailable', `${what}: ${String(err)}`);
      assert.ok(took < 1800, `${what} took ${took} ms`);
    }

    // Frozen: connections stay open and nothing answers, so only the deadline ends the call.
    await etcd.pauseMember(0);
    try {
      await failsFast('get from a frozen etcd', () => b.get(`${p}k`));
      await failsFast('update on a frozen etcd', () => b.update(`${p}k`, 'v2'));
    } finally {
      etcd.resumeMember(0);
    }
    // A write that timed out has an unknown outcome: the thawed etcd may still apply it (kube-apiserver's 504 too).
    assert.ok(['v', 'v2'].includes((await b.get(`${p}k`)).kv?.value ?? ''));

    // Dead: connections are refused.
    await etcd.killMember(0);
    try {
      await failsFast('get from a dead etcd', () => b.get(`${p}k`));
      await failsFast('create on a dead etcd', () => b.create(`${p}new`, 'v'));
      await failsFast('currentRevision of a dead etcd', () => b.currentRevision());
    } finally {
      await etcd.restartMember(0);
    }
    assert.ok((await b.get(`${p}k`)).kv);
    await b.create(`${p}new`, 'v');
  });
});
