// The watch caches' kept objects (shared items of lists and GETs) stay within
// ONE budget of stored bytes for every resource sharing it, on a real SQLite
// backend: a list of a second resource makes room by letting the first one's
// kept objects go, and a kept object is never served for a changed key.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteBackend } from '../../src/storage/sqlite.js';
import { CachedObjectStore } from '../../src/storage/cacher/cacher.js';
import { ListMemoBudget } from '../../src/storage/cacher/list-memo.js';
import type { KubeObject } from '../../src/machinery/meta.js';

async function fixture(t: { after(fn: () => unknown): void }, limitBytes: number) {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-list-memo-'));
  const backend = SqliteBackend.open(join(dir, 'db.sqlite'));
  const budget = new ListMemoBudget(limitBytes);
  const store = (resource: string) => new CachedObjectStore({ backend, resource: { group: '', resource }, namespaced: true, cache: { listMemo: budget } });
  const [configmaps, secrets] = [store('configmaps'), store('secrets')];
  t.after(async () => {
    configmaps.stop();
    secrets.stop();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await Promise.all([configmaps.start(), secrets.start()]);
  const item = (kind: string, name: string, v: string): KubeObject => ({ apiVersion: 'v1', kind, metadata: { name, namespace: 'ns' }, data: { v: v.padEnd(100, '.') } }) as KubeObject;
  for (let i = 0; i < 10; i++) {
    await configmaps.create('ns', `cm-${i}`, item('ConfigMap', `cm-${i}`, String(i)));
    await secrets.create('ns', `s-${i}`, item('Secret', `s-${i}`, String(i)));
  }
  return { budget, configmaps, secrets, item };
}

const sharedList = (store: CachedObjectStore) => store.list('ns', { resourceVersion: '0', sharedItems: true }).then((r) => r.items);

test('kept objects are shared by later lists while the budget holds them', async (t) => {
  const f = await fixture(t, 1 << 20);
  const first = await sharedList(f.configmaps);
  const second = await sharedList(f.configmaps);
  assert.equal(first.length, 10);
  for (let i = 0; i < 10; i++) assert.equal(second[i], first[i]);
  assert.ok(Object.isFrozen(first[0]));
  const kept = f.budget.usedBytes;
  assert.ok(kept > 1000);
  // The other resource's list is kept within the same budget.
  await sharedList(f.secrets);
  assert.ok(f.budget.usedBytes > kept);
});

test('a budget for one resource: listing another lets the first one go, and the total never passes it', async (t) => {
  // About one resource's worth of stored bytes (10 values of ~200 bytes).
  const f = await fixture(t, 2500);
  const cms = await sharedList(f.configmaps);
  assert.ok(f.budget.usedBytes <= 2500);
  const secrets = await sharedList(f.secrets);
  assert.ok(f.budget.usedBytes <= 2500, `used ${f.budget.usedBytes}`);
  assert.equal(secrets.length, 10);
  // The first resource's objects were let go: a new list parses them again (equal, not the same objects).
  const again = await sharedList(f.configmaps);
  assert.ok(again.some((o, i) => o !== cms[i]));
  assert.deepEqual(again, cms);
  assert.ok(f.budget.usedBytes <= 2500);
});

test('a changed object is never served from what was kept for it', async (t) => {
  const f = await fixture(t, 1 << 20);
  await sharedList(f.configmaps);
  await f.configmaps.guaranteedUpdate('ns', 'cm-3', () => f.item('ConfigMap', 'cm-3', 'changed'));
  // The cache applies the change on its watch: wait for it through a consistent list.
  const items = await f.configmaps.list('ns', { sharedItems: true }).then((r) => r.items);
  const cm3 = items.find((o) => o.metadata.name === 'cm-3')!;
  assert.equal((cm3['data'] as Record<string, string>)['v'], 'changed'.padEnd(100, '.'));
  await f.configmaps.delete('ns', 'cm-4');
  const after = await f.configmaps.list('ns', { sharedItems: true }).then((r) => r.items);
  assert.equal(after.length, 9);
});

test('a budget of 0 keeps nothing', async (t) => {
  const f = await fixture(t, 0);
  const [a, b] = [await sharedList(f.configmaps), await sharedList(f.configmaps)];
  assert.notEqual(a[0], b[0]);
  assert.equal(f.budget.usedBytes, 0);
});

test('a selective list keeps only the objects it returns', async (t) => {
  const f = await fixture(t, 1 << 20);
  const picked = await f.configmaps
    .list('ns', { resourceVersion: '0', sharedItems: true, predicate: (o) => o.metadata.name === 'cm-7' })
    .then((r) => r.items);
  assert.deepEqual(
    picked.map((o) => o.metadata.name),
    ['cm-7'],
  );
  const one = f.budget.usedBytes;
  assert.ok(one > 0 && one < 400, `kept ${one} bytes for one object`);
  // A later whole list shares the kept object and keeps the rest.
  const all = await sharedList(f.configmaps);
  assert.equal(all.find((o) => o.metadata.name === 'cm-7'), picked[0]);
  assert.ok(f.budget.usedBytes > 9 * one);
});

test('a list of more objects than listKeepMaxItems keeps none of them, but serves what a smaller list kept', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-list-memo-'));
  const backend = SqliteBackend.open(join(dir, 'db.sqlite'));
  const budget = new ListMemoBudget(1 << 20);
  const store = new CachedObjectStore({ backend, resource: { group: '', resource: 'configmaps' }, namespaced: true, cache: { listMemo: budget, listKeepMaxItems: 5 } });
  t.after(async () => {
    store.stop();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await store.start();
  const item = (ns: string, name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { v: name } }) as KubeObject;
  for (let i = 0; i < 4; i++) await store.create('small', `cm-${i}`, item('small', `cm-${i}`));
  for (let i = 0; i < 8; i++) await store.create('large', `cm-${i}`, item('large', `cm-${i}`));
  const whole = (ns: string) => store.list(ns, { resourceVersion: '0', sharedItems: true }).then((r) => r.items);
  const large = await whole('large');
  assert.equal(large.length, 8);
  assert.equal(budget.usedBytes, 0, 'a list of 8 with a maximum of 5 keeps nothing');
  assert.notEqual((await whole('large'))[0], large[0], 'parsed again');
  const small = await whole('small');
  assert.ok(budget.usedBytes > 0, 'a list of 4 keeps its objects');
  // The whole resource (12 objects) keeps nothing new, and shares what the small list kept.
  const all = await whole('');
  assert.equal(all.length, 12);
  assert.equal(all.find((o) => o.metadata.namespace === 'small' && o.metadata.name === 'cm-2'), small[2]);
  assert.deepEqual(all.filter((o) => o.metadata.namespace === 'large'), large);
});
