// A watch cache lists its resource in pages at one revision (upstream's
// cacher pages its lists from etcd too): the cache then holds exactly what a
// single read would have returned, writes made while it pages are seen by its
// watch and nothing twice. On a real SQLite backend and on real etcd (through
// the etcd client's thread), observed through a wrapper that counts range reads.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteBackend } from '../../src/storage/sqlite.js';
import { ThreadedEtcdBackend } from '../../src/storage/etcd/thread.js';
import { startEtcd } from '../helpers/etcd.js';
import { CachedObjectStore } from '../../src/storage/cacher/cacher.js';
import type { Backend, RangeOptions } from '../../src/storage/interface.js';
import type { KubeObject } from '../../src/machinery/meta.js';

/** The backend with every range read recorded (its options) and an optional hook after each. */
function observed(backend: Backend, afterRange?: (n: number) => Promise<void>): { backend: Backend; ranges: RangeOptions[] } {
  const ranges: RangeOptions[] = [];
  const wrapped = Object.create(backend) as Backend;
  wrapped.range = async (start, end, options) => {
    const res = await backend.range(start, end, options);
    ranges.push(options ?? {});
    await afterRange?.(ranges.length);
    return res;
  };
  return { backend: wrapped, ranges };
}

const item = (ns: string, name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { v: name } }) as KubeObject;

async function fixture(t: { after(fn: () => unknown): void }, on: 'sqlite' | 'etcd' = 'sqlite') {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-cache-list-'));
  const etcd = on === 'etcd' ? await startEtcd() : undefined;
  const backend: Backend = etcd !== undefined ? await ThreadedEtcdBackend.connect({ endpoints: etcd.endpoints }) : SqliteBackend.open(join(dir, 'db.sqlite'));
  const stores: CachedObjectStore[] = [];
  t.after(async () => {
    for (const s of stores) s.stop();
    await backend.close();
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const writer = new CachedObjectStore({ backend, resource: { group: '', resource: 'configmaps' }, namespaced: true, cache: {} });
  stores.push(writer);
  for (let i = 0; i < 23; i++) await writer.create(`ns-${i % 3}`, `cm-${String(i).padStart(2, '0')}`, item(`ns-${i % 3}`, `cm-${String(i).padStart(2, '0')}`));
  const cache = (b: Backend, listPageSize: number): CachedObjectStore => {
    const s = new CachedObjectStore({ backend: b, resource: { group: '', resource: 'configmaps' }, namespaced: true, cache: { listPageSize } });
    stores.push(s);
    return s;
  };
  return { backend, writer, cache };
}

const names = (items: KubeObject[]): string[] => items.map((o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`);

async function pagedLikeOneRead(f: Awaited<ReturnType<typeof fixture>>): Promise<void> {
  const o = observed(f.backend);
  const paged = f.cache(o.backend, 5);
  await paged.start();
  assert.equal(o.ranges.length, 5, '23 keys in pages of 5');
  assert.ok(o.ranges.every((r) => r.limit === 5));
  assert.equal(o.ranges[0]!.revision, 0, 'the first page at the current revision');
  const revision = o.ranges[1]!.revision;
  assert.ok(revision! > 0 && o.ranges.slice(1).every((r) => r.revision === revision), 'the rest at the first page\'s revision');
  const whole = f.cache(f.backend, 0);
  await whole.start();
  const [a, b] = [await paged.list('', { resourceVersion: '0' }), await whole.list('', { resourceVersion: '0' })];
  assert.equal(a.items.length, 23);
  assert.deepEqual(names(a.items), names(b.items));
  assert.equal(a.resourceVersion, String(revision));
}

test('the initial list goes in pages at the first page\'s revision and fills the cache as one read would', async (t) => {
  await pagedLikeOneRead(await fixture(t));
});

test('the same on etcd, through the etcd client\'s thread', async (t) => {
  await pagedLikeOneRead(await fixture(t, 'etcd'));
});

async function writesWhilePaging(f: Awaited<ReturnType<typeof fixture>>): Promise<void> {
  let written = 0;
  // After the second page: one key before the pages' position, one after, one changed, one deleted.
  const o = observed(f.backend, async (n) => {
    if (n !== 2) return;
    await f.writer.create('ns-0', 'aa-new', item('ns-0', 'aa-new'));
    await f.writer.create('ns-2', 'zz-new', item('ns-2', 'zz-new'));
    await f.writer.guaranteedUpdate('ns-1', 'cm-22', () => ({ ...item('ns-1', 'cm-22'), data: { v: 'changed' } }) as KubeObject);
    await f.writer.delete('ns-2', 'cm-20');
    written = 4;
  });
  const paged = f.cache(o.backend, 5);
  await paged.start();
  assert.equal(written, 4);
  // A consistent list waits for the cache to reach the backend's revision.
  const now = await f.writer.list('', {});
  const cached = await paged.list('', { resourceVersion: now.resourceVersion, resourceVersionMatch: 'NotOlderThan' });
  assert.deepEqual(names(cached.items), names(now.items));
  assert.equal(cached.items.length, 23 + 2 - 1);
  assert.equal((cached.items.find((x) => x.metadata.name === 'cm-22')!['data'] as Record<string, string>)['v'], 'changed');
}

test('writes made while the cache pages are seen by its watch, once', async (t) => {
  await writesWhilePaging(await fixture(t));
});

test('the same on etcd', async (t) => {
  await writesWhilePaging(await fixture(t, 'etcd'));
});
