// resourceVersion semantics, pagination and watch behaviour of the generic
// store over the watch cache (and, where noted, the direct path), with a real
// MemoryBackend.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/machinery/meta.js';
import type { ListOptions } from '../../src/registry/rest.js';
import { decodeStoredValue, encodeStoredValue } from '../../src/storage/managed-fields-codec.js';
import { collect, configMap, describe, newFixture, rvOf, statusOf } from './helpers.js';

test('list and get: resourceVersion cases, table-driven', async (t) => {
  const f = await newFixture({ watchCache: { waitTimeoutMs: 200 } });
  t.after(() => f.close());
  const cm = f.configmaps;
  const a = await cm.create('ns1', configMap('a'), {});
  const b = await cm.create('ns1', configMap('b'), {});
  const r2 = rvOf(b);
  await cm.create('ns1', configMap('c'), {});
  await cm.create('ns2', configMap('d'), {});
  const current = Number((await cm.list('', {})).metadata.resourceVersion);
  const firstPage = await cm.list('ns1', { limit: 1 });
  assert.ok(firstPage.metadata.continue);

  type Row = { name: string; options: ListOptions; code: number; names?: string[]; message?: RegExp; rv?: number };
  const rows: Row[] = [
    { name: 'unset: consistent, everything', options: {}, code: 200, names: ['a', 'b', 'c'], rv: current },
    { name: '"0": any (from the cache)', options: { resourceVersion: '0' }, code: 200, names: ['a', 'b', 'c'] },
    { name: '"0" ignores limit (served whole)', options: { resourceVersion: '0', limit: 1 }, code: 200, names: ['a', 'b', 'c'] },
    { name: 'NotOlderThan reached', options: { resourceVersion: String(r2), resourceVersionMatch: 'NotOlderThan' }, code: 200, names: ['a', 'b', 'c'], rv: current },
    { name: 'legacy not-older-than without limit', options: { resourceVersion: String(r2) }, code: 200, names: ['a', 'b', 'c'] },
    { name: 'Exact reads the past', options: { resourceVersion: String(r2), resourceVersionMatch: 'Exact' }, code: 200, names: ['a', 'b'], rv: r2 },
    { name: 'legacy exact with a limit', options: { resourceVersion: String(r2), limit: 10 }, code: 200, names: ['a', 'b'], rv: r2 },
    { name: 'future NotOlderThan waits then 504', options: { resourceVersion: String(current + 50), resourceVersionMatch: 'NotOlderThan' }, code: 504, message: /^Timeout: Too large resource version: \d+, current: \d+$/ },
    // An exact read past the store is etcd's error passed through as a plain 500, as kube-apiserver 1.32 answers.
    { name: 'future Exact is etcd\'s error', options: { resourceVersion: String(current + 50), resourceVersionMatch: 'Exact' }, code: 500, message: /^etcdserver: mvcc: required revision is a future revision$/ },
    { name: 'future legacy exact (limit) too', options: { resourceVersion: String(current + 50), limit: 1 }, code: 500, message: /^etcdserver: mvcc: required revision is a future revision$/ },
    { name: 'future legacy waits then 504', options: { resourceVersion: String(current + 50) }, code: 504, message: /Too large resource version/ },
    { name: 'non-numeric', options: { resourceVersion: 'abc' }, code: 400, message: /^invalid resource version: / },
    { name: 'Exact "0"', options: { resourceVersion: '0', resourceVersionMatch: 'Exact' }, code: 400, message: /resourceVersionMatch "Exact" is forbidden/ },
    { name: 'continue with a resourceVersion', options: { continue: firstPage.metadata.continue!, resourceVersion: String(r2) }, code: 400, message: /^specifying resource version is not allowed when using continue$/ },
    { name: 'continue with "0" is allowed', options: { continue: firstPage.metadata.continue!, resourceVersion: '0' }, code: 200, names: ['b', 'c'] },
    { name: 'malformed continue', options: { continue: 'not-a-token!' }, code: 400, message: /^invalid continue token/ },
  ];
  for (const row of rows) {
    if (row.code === 200) {
      const list = await cm.list('ns1', row.options);
      assert.deepEqual(list.items.map((i) => i.metadata.name), row.names, row.name);
      if (row.rv !== undefined) assert.equal(Number(list.metadata.resourceVersion), row.rv, row.name);
    } else {
      const status = await statusOf(cm.list('ns1', row.options));
      assert.equal(status.code, row.code, `${row.name}: ${status.message}`);
      assert.match(status.message ?? '', row.message ?? /a failure row names its message/, row.name);
      assert.equal(status.details?.retryAfterSeconds, row.code === 504 ? 1 : undefined, row.name);
    }
  }

  // GET: unset reads storage; a resourceVersion reads the cache once it is that new.
  assert.equal((await cm.get('ns1', 'a', {})).metadata.name, 'a');
  assert.equal((await cm.get('ns1', 'a', { resourceVersion: '0' })).metadata.resourceVersion, a.metadata.resourceVersion);
  assert.equal((await cm.get('ns1', 'a', { resourceVersion: String(current) })).metadata.name, 'a');
  assert.equal((await statusOf(cm.get('ns1', 'a', { resourceVersion: String(current + 9) }))).code, 504);
  assert.equal((await statusOf(cm.get('ns1', 'zz', { resourceVersion: '0' }))).code, 404);
  assert.equal((await statusOf(cm.get('ns1', 'a', { resourceVersion: 'x' }))).code, 400);
});

test('a future resourceVersion is served once the cache reaches it (within the wait)', async (t) => {
  const f = await newFixture();
  t.after(() => f.close());
  const first = await f.configmaps.create('ns', configMap('first'), {});
  const pending = f.configmaps.list('ns', { resourceVersion: String(rvOf(first) + 1), resourceVersionMatch: 'NotOlderThan' });
  setTimeout(() => void f.configmaps.create('ns', configMap('second'), {}), 100);
  const list = await pending;
  assert.deepEqual(list.items.map((i) => i.metadata.name), ['first', 'second']);
});

test('consistent lists see writes to other resources through progress (no fallback wait)', async (t) => {
  const f = await newFixture({ watchCache: { waitTimeoutMs: 2000 } });
  t.after(() => f.close());
  await f.configmaps.create('ns', configMap('x'), {});
  for (let i = 0; i < 5; i++) {
    await f.secrets.create('ns', { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${i}` } } as KubeObject, {});
  }
  const started = Date.now();
  const list = await f.configmaps.list('ns', {});
  assert.ok(Date.now() - started < 500, 'served without waiting for the timeout');
  assert.equal(Number(list.metadata.resourceVersion), await f.backend.currentRevision());
});

test('exact reads below the compacted revision are 410 Expired; a compacted continue token gets a fresh one', async (t) => {
  const f = await newFixture();
  t.after(() => f.close());
  const cm = f.configmaps;
  for (const n of ['a', 'b', 'c', 'd']) await cm.create('ns', configMap(n), {});
  const page1 = await cm.list('ns', { limit: 2 });
  assert.deepEqual(page1.items.map((i) => i.metadata.name), ['a', 'b']);
  assert.equal(page1.metadata.remainingItemCount, 2);
  const old = Number(page1.metadata.resourceVersion);
  await cm.create('ns', configMap('e'), {});
  await f.backend.compact(await f.backend.currentRevision());

  const exact = await statusOf(cm.list('ns', { resourceVersion: String(old), resourceVersionMatch: 'Exact' }));
  assert.equal(exact.code, 410);
  assert.equal(exact.reason, 'Expired');
  assert.equal(exact.message, 'The resourceVersion for the provided list is too old.');

  const expired = await statusOf(cm.list('ns', { limit: 2, continue: page1.metadata.continue! }));
  assert.equal(expired.code, 410);
  assert.equal(expired.reason, 'Expired');
  assert.equal(
    expired.message,
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue value from the response to get an inconsistent list.',
  );
  const fresh = expired.metadata.continue;
  assert.ok(fresh, 'the Status carries a new continue token');
  // The fresh token continues after "b", at the latest revision (so "e" shows up).
  const rest = await cm.list('ns', { limit: 10, continue: fresh! });
  assert.deepEqual(rest.items.map((i) => i.metadata.name), ['c', 'd', 'e']);
  assert.equal(rest.metadata.continue, undefined, 'the last page has no token');
});

test('paginated list under concurrent writes returns every object of the snapshot exactly once', async (t) => {
  const f = await newFixture();
  t.after(() => f.close());
  const cm = f.configmaps;
  for (let i = 0; i < 60; i++) await cm.create('ns', configMap(`obj-${String(i).padStart(3, '0')}`), {});
  const snapshot = new Set((await cm.list('ns', {})).items.map((i) => i.metadata.name!));

  let writing = true;
  let n = 0;
  // The writer starts once the first page is read: a write that lands before it is rightly in the snapshot the pages show.
  let writer: Promise<void> | undefined;
  const startWriter = async (): Promise<void> => {
    while (writing) {
      n++;
      await cm.create('ns', configMap(`new-${n}`), {});
      await cm.delete('ns', `obj-${String(n % 60).padStart(3, '0')}`, {}).catch(() => {});
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const seen: string[] = [];
  let token: string | undefined;
  let listRV = '';
  let pages = 0;
  do {
    const page = await cm.list('ns', token ? { limit: 7, continue: token } : { limit: 7 });
    if (listRV === '') listRV = page.metadata.resourceVersion!;
    else assert.equal(page.metadata.resourceVersion, listRV, 'every page is read at the first page\'s revision');
    for (const item of page.items) seen.push(item.metadata.name!);
    token = page.metadata.continue;
    pages++;
    writer ??= startWriter();
    await new Promise((resolve) => setTimeout(resolve, 5));
  } while (token);
  writing = false;
  await writer;
  assert.ok(n > 3, 'writes happened between pages');
  assert.equal(pages, Math.ceil(snapshot.size / 7));
  assert.equal(new Set(seen).size, seen.length, 'no duplicates');
  assert.deepEqual(new Set(seen), snapshot);
});

test('watch from an explicit resourceVersion, resumed after a disconnect, misses nothing', async (t) => {
  const f = await newFixture();
  t.after(() => f.close());
  const cm = f.configmaps;
  const start = rvOf(await cm.create('ns', configMap('before'), {}));
  const expected: string[] = [];
  const write = async (i: number) => {
    const name = `w${i % 4}`;
    try {
      const o = await cm.create('ns', configMap(name), {});
      expected.push(`ADDED:${name}@${o.metadata.resourceVersion}`);
    } catch {
      const o = await cm.patch('ns', name, (c) => ({ ...c, data: { i: String(i) } }), {});
      expected.push(`MODIFIED:${name}@${o.metadata.resourceVersion}`);
    }
  };
  let w = await collect(cm, 'ns', { resourceVersion: String(start) });
  const received: string[] = [];
  for (let i = 0; i < 30; i++) {
    await write(i);
    if (i % 7 === 6) {
      // Disconnect and resume from the last resourceVersion seen.
      w.watcher.stop();
      received.push(...describe(w.events));
      const last = w.events.length > 0 ? rvOf(w.events[w.events.length - 1]!.object as KubeObject) : start;
      await write(1000 + i); // a write while disconnected
      w = await collect(cm, 'ns', { resourceVersion: String(last) });
    }
  }
  await w.waitFor(expected.length - received.length);
  received.push(...describe(w.events));
  w.watcher.stop();
  assert.deepEqual(received, expected);
  assert.ok(!received.some((e) => e.includes(':before@')), 'nothing at or before the start');
});

test('watch: unset and "0" send the current state first; a shared event is one object for every unfiltered watcher', async (t) => {
  const f = await newFixture();
  t.after(() => f.close());
  const cm = f.configmaps;
  await cm.create('ns', configMap('a'), {});
  await cm.create('other', configMap('z'), {});
  const w1 = await collect(cm, 'ns', {});
  const w2 = await collect(cm, 'ns', { resourceVersion: '0' });
  assert.deepEqual(describe(w1.events).map((s) => s.split('@')[0]), ['ADDED:a']);
  assert.deepEqual(describe(w2.events).map((s) => s.split('@')[0]), ['ADDED:a']);
  await cm.create('ns', configMap('b'), {});
  await w1.waitFor(2);
  await w2.waitFor(2);
  assert.equal(w1.events[1], w2.events[1], 'the same WatchEvent object (encoded once by the HTTP layer)');
  w1.watcher.stop();
  w2.watcher.stop();
});

test('watch selectors: leaving is DELETED, entering is ADDED', async (t) => {
  const f = await newFixture();
  t.after(() => f.close());
  const cm = f.configmaps;
  await cm.create('ns', configMap('x', { app: 'web' }), {});
  const w = await collect(cm, 'ns', { labelSelector: 'app=web' });
  const relabel = (app: string) => cm.patch('ns', 'x', (c) => ({ ...c, metadata: { ...c.metadata, labels: { app } } }), {});
  await relabel('db');
  await relabel('web');
  await cm.patch('ns', 'x', (c) => ({ ...c, data: { k: 'v' } }), {});
  await cm.create('ns', configMap('y', { app: 'db' }), {});
  await cm.delete('ns', 'x', {});
  await w.waitFor(5);
  assert.deepEqual(describe(w.events).map((s) => s.split('@')[0]), ['ADDED:x', 'DELETED:x', 'ADDED:x', 'MODIFIED:x', 'DELETED:x']);
  // The DELETED of an object leaving carries its last matching state.
  assert.equal((w.events[1]!.object as KubeObject).metadata.labels?.app, 'web');
  w.watcher.stop();
});

test('watch older than the kept history: ERROR 410 Expired "too old resource version", then the end', async (t) => {
  const f = await newFixture({ watchCache: { historySize: 5 } });
  t.after(() => f.close());
  const cm = f.configmaps;
  const first = rvOf(await cm.create('ns', configMap('first'), {}));
  for (let i = 0; i < 10; i++) await cm.create('ns', configMap(`n${i}`), {});
  const w = await collect(cm, 'ns', { resourceVersion: String(first) });
  await w.ended();
  assert.equal(w.events.length, 1);
  assert.equal(w.events[0]!.type, 'ERROR');
  const status = w.events[0]!.object as { code: number; reason: string; message: string };
  assert.equal(status.code, 410);
  assert.equal(status.reason, 'Expired');
  assert.match(status.message, new RegExp(`^too old resource version: ${first} \\(\\d+\\)$`));
  const oldest = Number(/\((\d+)\)/.exec(status.message)![1]);
  // From the oldest resumable version the watch works.
  const ok = await collect(cm, 'ns', { resourceVersion: String(oldest) });
  await ok.waitFor(5);
  assert.ok(ok.events.every((e) => e.type === 'ADDED'));
  ok.watcher.stop();
});

test('direct path (watch cache off): watch after compaction is 410', async (t) => {
  const f = await newFixture({ watchCache: false });
  t.after(() => f.close());
  const cm = f.configmaps;
  const first = rvOf(await cm.create('ns', configMap('a'), {}));
  await cm.create('ns', configMap('b'), {});
  await f.backend.compact(await f.backend.currentRevision());
  const w = await collect(cm, 'ns', { resourceVersion: String(first) });
  await w.ended();
  assert.equal(w.events[0]?.type, 'ERROR');
  assert.equal((w.events[0]!.object as { code: number }).code, 410);
});

test('bookmarks: periodic, only kind/apiVersion/resourceVersion, and on a clean timeout end', async (t) => {
  const f = await newFixture({ bookmarkIntervalMs: 100 });
  t.after(() => f.close());
  const cm = f.configmaps;
  const a = await cm.create('ns', configMap('a'), {});
  const w = await collect(cm, 'ns', { resourceVersion: a.metadata.resourceVersion!, allowWatchBookmarks: true, timeoutSeconds: 1 });
  await cm.create('ns', configMap('b'), {});
  // A write elsewhere moves the bookmark's resourceVersion past b's.
  const s = await f.secrets.create('other', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } } as KubeObject, {});
  await w.ended(3000);
  const bookmarks = w.events.filter((e) => e.type === 'BOOKMARK');
  assert.ok(bookmarks.length >= 3, `periodic bookmarks (got ${bookmarks.length})`);
  assert.deepEqual(bookmarks[0]!.object, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: s.metadata.resourceVersion, creationTimestamp: null } });
  assert.equal(w.events[w.events.length - 1]!.type, 'BOOKMARK', 'the last event before a clean end is a bookmark');
  assert.deepEqual(w.events.filter((e) => e.type !== 'BOOKMARK').map((e) => e.type), ['ADDED']);
});

test('streaming list: sendInitialEvents=true gives ADDED, the initial-events-end bookmark, then changes', async (t) => {
  const f = await newFixture();
  t.after(() => f.close());
  const cm = f.configmaps;
  await cm.create('ns', configMap('a'), {});
  await cm.create('ns', configMap('b'), {});
  const w = await collect(cm, 'ns', { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true });
  const c = await cm.create('ns', configMap('c'), {});
  await w.waitFor(4);
  assert.deepEqual(w.events.map((e) => e.type), ['ADDED', 'ADDED', 'BOOKMARK', 'ADDED']);
  const end = w.events[2]!.object as KubeObject;
  assert.deepEqual(end.metadata.annotations, { 'k8s.io/initial-events-end': 'true' });
  assert.ok(rvOf(end) < rvOf(c));
  w.watcher.stop();
});

test('namespaced list from the cache returns only that namespace', async (t) => {
  const f = await newFixture();
  t.after(() => f.close());
  for (const ns of ['a', 'b', 'c']) for (let i = 0; i < 3; i++) await f.configmaps.create(ns, configMap(`${ns}${i}`), {});
  const list = await f.configmaps.list('b', { resourceVersion: '0' });
  assert.deepEqual(list.items.map((i) => i.metadata.name), ['b0', 'b1', 'b2']);
  assert.equal((await f.configmaps.list('', { resourceVersion: '0' })).items.length, 9);
});

test('getCached: the cache\'s object without waiting, parsed once per revision, shared and frozen', async (t) => {
  const f = await newFixture();
  t.after(() => f.close());
  const cm = f.configmaps;
  const created = await cm.create('ns', configMap('a', {}, { k: 'v1' }), {});
  // Reading at the write's revision waits for the cache to hold it.
  await cm.get('ns', 'a', { resourceVersion: created.metadata.resourceVersion! });
  const first = cm.getCached('ns', 'a');
  assert.equal(first?.metadata.resourceVersion, created.metadata.resourceVersion);
  assert.deepEqual((first as { data?: unknown }).data, { k: 'v1' });
  assert.equal(cm.getCached('ns', 'a'), first, 'the same object until the next write');
  assert.ok(Object.isFrozen(first) && Object.isFrozen(first!.metadata) && Object.isFrozen((first as { data?: object }).data));
  assert.throws(() => {
    (first!.metadata as { name?: string }).name = 'changed';
  }, TypeError);

  const { object: updated } = await cm.update('ns', 'a', { ...configMap('a', {}, { k: 'v2' }), metadata: { name: 'a', resourceVersion: created.metadata.resourceVersion! } }, {});
  await cm.get('ns', 'a', { resourceVersion: updated.metadata.resourceVersion! });
  const second = cm.getCached('ns', 'a');
  assert.notEqual(second, first);
  assert.equal(second?.metadata.resourceVersion, updated.metadata.resourceVersion);
  assert.deepEqual((second as { data?: unknown }).data, { k: 'v2' });
  assert.equal(first!.metadata.name, 'a', 'an object handed out earlier stays as it was');

  assert.equal(cm.getCached('ns', 'missing'), undefined);
  assert.equal(cm.getCached('other', 'a'), undefined);
});

test('getCached without a watch cache: undefined (callers read storage)', async (t) => {
  const f = await newFixture({ watchCache: false });
  t.after(() => f.close());
  await f.configmaps.create('ns', configMap('a'), {});
  assert.equal(f.configmaps.getCached('ns', 'a'), undefined);
});

/**
 * ns1/a (data v=1) held by the watch cache, the reads of the real
 * MemoryBackend counted, and a way to write behind the cache's back.
 */
async function cachedConfigMap(t: { after(fn: () => unknown): void }) {
  const f = await newFixture();
  t.after(() => f.close());
  const created = await f.configmaps.create('ns1', configMap('a', {}, { v: '1' }), {});
  let backendGets = 0;
  const get = f.backend.get.bind(f.backend);
  f.backend.get = (...args: Parameters<typeof get>) => {
    backendGets++;
    return get(...args);
  };
  // Let the cache catch up.
  for (let i = 0; i < 50 && (await f.backend.currentRevision()) > Number(created.metadata.resourceVersion); i++) await new Promise((r) => setImmediate(r));
  await new Promise((r) => setTimeout(r, 20));
  const key = '/registry/configmaps/ns1/a';
  return {
    cm: f.configmaps,
    created,
    reads: () => backendGets,
    /** Sets data.v straight in the backend, a write the cache has not seen yet; its revision. */
    writeBehindCache: async (v: string): Promise<number> => {
      const stored = (await get(key)).kv!;
      const next = decodeStoredValue(stored.value);
      next['data'] = { v };
      return (await f.backend.update(key, encodeStoredValue(next), stored.modRevision)).modRevision;
    },
  };
}

test('a consistent get is served from the watch cache once it holds the backend revision, and never older than the backend', async (t) => {
  const { cm, reads, writeBehindCache } = await cachedConfigMap(t);
  // Once the cache has caught up, gets do not read the backend.
  const before = reads();
  for (let i = 0; i < 5; i++) assert.deepEqual((await cm.get('ns1', 'a', {})).data, { v: '1' });
  assert.equal(reads(), before);
  // A write the cache has not seen yet (straight into the backend): the very next get still sees it.
  const written = await writeBehindCache('2');
  const read = await cm.get('ns1', 'a', {});
  assert.deepEqual(read.data, { v: '2' });
  assert.equal(read.metadata.resourceVersion, String(written));
});

test('an update that changes nothing is decided on the watch cache once it holds the backend revision; a write it has not seen still counts', async (t) => {
  const { cm, created, reads, writeBehindCache } = await cachedConfigMap(t);
  // The same object again: no write, no read of the backend.
  const before = reads();
  const { object: same } = await cm.update('ns1', 'a', configMap('a', {}, { v: '1' }), {});
  assert.equal(same.metadata.resourceVersion, created.metadata.resourceVersion);
  assert.equal(reads(), before);
  // A write straight into the backend, not yet in the cache: the same update
  // is now a change (v=2 back to v=1), and it is written.
  const written = await writeBehindCache('2');
  const { object: again } = await cm.update('ns1', 'a', configMap('a', {}, { v: '1' }), {});
  assert.deepEqual(again.data, { v: '1' });
  assert.ok(Number(again.metadata.resourceVersion) > written);
  assert.deepEqual((await cm.get('ns1', 'a', {})).data, { v: '1' });
});
