// Runs the Backend conformance suite against SqliteBackend (a real file in a
// temporary directory), plus what only a file-backed store has: reopening,
// TTL sweep, fast open on a large file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { SqliteBackend } from '../../src/storage/sqlite.js';
import { prefixEnd, type WatchEvent } from '../../src/storage/interface.js';
import { runBackendConformance } from './conformance.js';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-sqlite-'));
}

runBackendConformance('sqlite', async () => {
  const dir = tempDir();
  const backend = SqliteBackend.open(path.join(dir, 'apiary.db'));
  return {
    backend,
    cleanup: async () => {
      await backend.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

test('sqlite: data, revisions, history and the compaction point survive reopening', async (t) => {
  const dir = tempDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'apiary.db');
  const first = SqliteBackend.open(file);
  const a1 = await first.create('/registry/pods/ns/a', 'a1');
  await first.update('/registry/pods/ns/a', 'a2');
  const b1 = await first.create('/registry/pods/ns/b', 'b1');
  await first.delete('/registry/pods/ns/b');
  const a3 = await first.update('/registry/pods/ns/a', 'a3');
  await first.compact(b1.modRevision);
  await first.close();

  const second = SqliteBackend.open(file);
  t.after(() => second.close());
  assert.equal(await second.currentRevision(), a3.modRevision);
  assert.equal(await second.compactedRevision(), b1.modRevision);
  const got = await second.get('/registry/pods/ns/a');
  assert.deepEqual(got.kv, { key: '/registry/pods/ns/a', value: 'a3', createRevision: a1.modRevision, modRevision: a3.modRevision });
  assert.equal((await second.get('/registry/pods/ns/b', { revision: b1.modRevision })).kv?.value, 'b1');
  await assert.rejects(second.get('/registry/pods/ns/a', { revision: a1.modRevision }), { code: 'Compacted' });
  const next = await second.create('/registry/pods/ns/c', 'c1');
  assert.equal(next.modRevision, a3.modRevision + 1, 'the revision counter continues where it stopped');

  const events: WatchEvent[] = [];
  const handle = second.watch('/registry/pods/', b1.modRevision, { onEvents: (e) => events.push(...e), onError: () => {} });
  t.after(() => handle.cancel());
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(
    events.map((e) => (e.type === 'put' ? ['put', e.kv.value, e.prevKv?.value] : ['delete', e.key, e.prevKv.value])),
    [
      ['delete', '/registry/pods/ns/b', 'b1'],
      ['put', 'a3', 'a2'],
      ['put', 'c1', undefined],
    ],
  );
});

test('sqlite: expired keys are swept through the delete path and watchers see the deletion', async (t) => {
  const dir = tempDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  let now = 1_000_000;
  const backend = SqliteBackend.open(path.join(dir, 'apiary.db'), { now: () => now, ttlSweepIntervalMs: 60_000 });
  t.after(() => backend.close());
  const events: WatchEvent[] = [];
  backend.watch('/registry/events/', 0, { onEvents: (e) => events.push(...e), onError: () => {} });
  await backend.create('/registry/events/ns/short', 's', { ttlSeconds: 10 });
  await backend.create('/registry/events/ns/long', 'l', { ttlSeconds: 100 });
  await backend.create('/registry/events/ns/renewed', 'r1', { ttlSeconds: 10 });
  await backend.update('/registry/events/ns/renewed', 'r2', undefined, { ttlSeconds: 100 });
  await backend.create('/registry/events/ns/forever', 'f');
  now += 11_000;
  assert.equal(await backend.sweepExpired(), 1);
  const left = await backend.range('/registry/events/', prefixEnd('/registry/events/'));
  assert.deepEqual(left.kvs.map((kv) => kv.value), ['f', 'l', 'r2']);
  now += 100_000;
  assert.equal(await backend.sweepExpired(), 2);
  assert.deepEqual((await backend.range('/registry/events/', prefixEnd('/registry/events/'))).kvs.map((kv) => kv.value), ['f']);
  const deletions = events.filter((e) => e.type === 'delete').map((e) => (e.type === 'delete' ? e.prevKv.value : ''));
  assert.deepEqual(deletions, ['s', 'l', 'r2']);
});

test('sqlite: opening a large file does not load it (20,000 rows of 1 KiB open in well under a second)', async (t) => {
  const dir = tempDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'apiary.db');
  const writer = SqliteBackend.open(file);
  const value = 'v'.repeat(1024);
  // All in one tick: group commit writes them in one transaction.
  await Promise.all(Array.from({ length: 20_000 }, (_, i) => writer.create(`/registry/configmaps/ns${i % 50}/cm${i}`, value)));
  await writer.close();

  const started = performance.now();
  const reader = SqliteBackend.open(file);
  const revision = await reader.currentRevision();
  const openMs = performance.now() - started;
  t.after(() => reader.close());
  assert.equal(revision, 20_000);
  assert.ok(openMs < 500, `open took ${openMs.toFixed(1)} ms`);
  // A namespaced list reads that namespace only.
  const listed = await reader.range('/registry/configmaps/ns7/', prefixEnd('/registry/configmaps/ns7/'));
  assert.equal(listed.count, 400);
});

test('sqlite: a second backend on the same file fails instead of forking the revision history', async (t) => {
  const dir = tempDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'apiary.db');
  const owner = SqliteBackend.open(file);
  await owner.create('/registry/x', 'v');
  assert.throws(() => SqliteBackend.open(file), { code: 'Unavailable' });
  assert.equal((await owner.get('/registry/x')).kv?.value, 'v');
  await owner.close();
  const next = SqliteBackend.open(file); // the lock goes with the owner
  t.after(() => next.close());
  assert.equal((await next.get('/registry/x')).kv?.value, 'v');
});

test('sqlite: a write becomes visible (reads, watch events, the current revision) only once it is acknowledged', async (t) => {
  // Batches are committed to the file before their fsync returns; until it does,
  // nobody may see them. Readers poll in every macrotask while writes stream in.
  const dir = tempDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const backend = SqliteBackend.open(path.join(dir, 'apiary.db'));
  t.after(() => backend.close());
  const acked = new Set<string>();
  let ackedRevision = await backend.currentRevision();
  const seenEarly: string[] = [];
  const handle = backend.watch('/registry/configmaps/', ackedRevision, {
    // Events go out in the same tick the batch's promises settle: look once those reactions ran.
    onEvents: (events) =>
      queueMicrotask(() => {
        for (const e of events) if (e.type === 'put' && !acked.has(e.kv.key)) seenEarly.push(`watch ${e.kv.key}`);
      }),
    onError: () => {},
  });
  t.after(() => handle.cancel());
  const keys = Array.from({ length: 400 }, (_, i) => `/registry/configmaps/ns/cm-${i}`);
  let writing = true;
  const polls = (async () => {
    let probe = 0;
    while (writing) {
      await new Promise((r) => setImmediate(r));
      const key = keys[probe++ % keys.length];
      const got = await backend.get(key);
      if (got.kv !== null && !acked.has(key)) seenEarly.push(`get ${key}`);
      const listed = await backend.range('/registry/configmaps/', prefixEnd('/registry/configmaps/'));
      for (const kv of listed.kvs) {
        if (!acked.has(kv.key)) seenEarly.push(`range ${kv.key}`);
        assert.ok(kv.modRevision <= listed.revision, 'no item is newer than the revision of its answer');
      }
      assert.ok((await backend.currentRevision()) <= ackedRevision, 'the current revision is never ahead of the acknowledged writes');
    }
  })();
  // Waves of writes in separate ticks, so batches overlap fsyncs in flight.
  for (let wave = 0; wave < 20; wave++) {
    await new Promise((r) => setImmediate(r));
    for (const key of keys.slice(wave * 20, wave * 20 + 20)) {
      void backend.create(key, 'v').then((kv) => {
        acked.add(key);
        ackedRevision = Math.max(ackedRevision, kv.modRevision);
      });
    }
  }
  while (acked.size < keys.length) await new Promise((r) => setTimeout(r, 5));
  writing = false;
  await polls;
  assert.deepEqual(seenEarly, []);
  assert.equal((await backend.range('/registry/configmaps/', prefixEnd('/registry/configmaps/'))).kvs.length, keys.length);
});

test('sqlite: a batch committed during a slow fsync gets its own, and whichever returns first settles both, in order', async (t) => {
  // The first fsync is held for 600 ms (a slow disk); a batch committed meanwhile
  // must not wait for it: its own fsync covers both batches, so both writes are
  // acknowledged long before the slow one returns, the earlier one first, and
  // watchers see the two events in revision order.
  const dir = tempDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const backend = SqliteBackend.open(path.join(dir, 'apiary.db'));
  t.after(() => backend.close());
  await backend.create('/registry/configmaps/ns/first', 'v'); // the WAL exists
  const realSync = fs.fdatasync;
  let calls = 0;
  // The backend imports fdatasync from node:fs: syncBuiltinESMExports makes it see the stand-in.
  fs.fdatasync = ((fd: number, callback: (err: NodeJS.ErrnoException | null) => void) => {
    calls++;
    if (calls === 1) realSync(fd, (err) => setTimeout(() => callback(err), 600));
    else realSync(fd, callback);
  }) as typeof fs.fdatasync;
  syncBuiltinESMExports();
  t.after(() => {
    fs.fdatasync = realSync;
    syncBuiltinESMExports();
  });
  const from = await backend.currentRevision();
  const watched: string[] = [];
  const handle = backend.watch('/registry/configmaps/', from, {
    onEvents: (events) => {
      for (const e of events) if (e.type === 'put') watched.push(e.kv.key);
    },
    onError: () => {},
  });
  t.after(() => handle.cancel());
  const started = performance.now();
  const order: string[] = [];
  const slow = backend.create('/registry/configmaps/ns/slow', 'v').then((kv) => (order.push('slow'), kv));
  // Its batch commits and its fsync starts in the next turns of the loop.
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  assert.equal(calls, 1, 'the first batch is being synced');
  const quick = backend.create('/registry/configmaps/ns/quick', 'v').then((kv) => (order.push('quick'), kv));
  const [a, b] = await Promise.all([slow, quick]);
  const took = performance.now() - started;
  assert.ok(took < 450, `both acknowledged before the slow fsync returned (took ${took.toFixed(0)} ms)`);
  assert.deepEqual(order, ['slow', 'quick']);
  assert.ok(a.modRevision < b.modRevision);
  assert.equal(await backend.currentRevision(), b.modRevision);
  while (watched.length < 2) await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(watched, ['/registry/configmaps/ns/slow', '/registry/configmaps/ns/quick']);
  // The slow fsync's late return changes nothing, and writes go on.
  await new Promise((r) => setTimeout(r, 700));
  const later = await backend.create('/registry/configmaps/ns/later', 'v');
  assert.equal(later.modRevision, b.modRevision + 1);
  assert.equal((await backend.get('/registry/configmaps/ns/slow')).kv?.modRevision, a.modRevision);
});

test('sqlite: writes queued while two fsyncs run wait uncommitted, then go in one transaction, each acknowledged in order', async (t) => {
  // Both fsync slots are held for 300 ms; writes from five later turns of the
  // loop are not committed one batch a turn (their fsync could not start
  // before a slot frees anyway) but together, once one does.
  const dir = tempDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const backend = SqliteBackend.open(path.join(dir, 'apiary.db'));
  t.after(() => backend.close());
  await backend.create('/registry/configmaps/ns/first', 'v'); // the WAL exists
  const internals = backend as unknown as { applyBatch: (ops: unknown[]) => unknown };
  const applyBatch = internals.applyBatch;
  const committed: number[] = [];
  internals.applyBatch = (ops) => (committed.push(ops.length), applyBatch(ops));
  const realSync = fs.fdatasync;
  let calls = 0;
  fs.fdatasync = ((fd: number, callback: (err: NodeJS.ErrnoException | null) => void) => {
    calls++;
    if (calls <= 2) realSync(fd, (err) => setTimeout(() => callback(err), 300));
    else realSync(fd, callback);
  }) as typeof fs.fdatasync;
  syncBuiltinESMExports();
  t.after(() => {
    fs.fdatasync = realSync;
    syncBuiltinESMExports();
  });
  const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
  const writes: Promise<{ modRevision: number }>[] = [backend.create('/registry/configmaps/ns/a', 'v')];
  while (calls < 1) await turn();
  writes.push(backend.create('/registry/configmaps/ns/b', 'v'));
  while (calls < 2) await turn();
  for (let i = 0; i < 5; i++) {
    writes.push(backend.create(`/registry/configmaps/ns/held-${i}`, 'v'));
    await turn();
  }
  const order: number[] = [];
  const acked = await Promise.all(writes.map((w, i) => w.then((kv) => (order.push(i), kv))));
  assert.deepEqual(committed, [1, 1, 5]);
  assert.deepEqual(order, [0, 1, 2, 3, 4, 5, 6]);
  const revisions = acked.map((kv) => kv.modRevision);
  assert.deepEqual(revisions, revisions.map((_, i) => revisions[0]! + i), 'one revision each, in the order written');
  assert.equal(await backend.currentRevision(), revisions[6]);
  assert.equal((await backend.range('/registry/configmaps/', prefixEnd('/registry/configmaps/'))).kvs.length, 8);
});

test('sqlite: range reads stop at their limit: no plan sorts or walks the whole range', (t) => {
  const dir = tempDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const backend = SqliteBackend.open(path.join(dir, 'apiary.db'));
  t.after(() => backend.close());
  const plans = backend.rangeQueryPlans();
  for (const name of ['rangeCurrent', 'rangeAt', 'countCurrent'] as const) {
    const plan = plans[name];
    assert.ok(!plan.some((step) => /TEMP B-TREE|^SCAN/.test(step)), `${name}: ${plan.join(' | ')}`);
  }
  // A past revision's range walks the (key, revision) index in key order (a
  // paged list used to sort the whole range per page, O(n) per page).
  assert.ok(plans.rangeAt.some((step) => /history_key_revision \(key>\? AND key<\?\)/.test(step)), plans.rangeAt.join(' | '));
  // The writes after a past revision are found by revision (then sorted: they are few), not by walking the range.
  assert.ok(plans.countDelta.some((step) => /INTEGER PRIMARY KEY \(rowid>\?\)/.test(step)), plans.countDelta.join(' | '));
});

test('sqlite: a count at a revision far behind (more than 10,000 writes) walks the range and is right', async (t) => {
  const dir = tempDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const backend = SqliteBackend.open(path.join(dir, 'apiary.db'));
  t.after(() => backend.close());
  const p = '/registry/configmaps/ns/';
  for (let i = 0; i < 5; i++) await backend.create(`${p}k${i}`, 'v');
  const then = await backend.currentRevision();
  await backend.delete(`${p}k0`);
  await Promise.all(Array.from({ length: 10_001 }, (_, i) => backend.create(`/registry/secrets/ns/s${i}`, 'v')));
  await backend.create(`${p}k9`, 'v');
  const past = await backend.range(p, prefixEnd(p), { revision: then, limit: 2 });
  assert.deepEqual([past.kvs.map((kv) => kv.key), past.more, past.count], [[`${p}k0`, `${p}k1`], true, 5]);
  const recent = await backend.range(p, prefixEnd(p), { revision: then + 1, limit: 2 });
  assert.deepEqual([recent.kvs.map((kv) => kv.key), recent.more, recent.count], [[`${p}k1`, `${p}k2`], true, 4]);
});
