// A watch cache's event for a write this server made is the object it wrote
// (object-store.ts decodeEvent), not a parse of the stored JSON: the event
// must still be exactly what a parse of the stored value gives, byte for byte
// in JSON (key order, resourceVersion last, managedFields in both stored
// forms), on a real SQLite backend. A watcher of another server of the same
// data (a second cache over the backend) parses, and sees the same bytes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteBackend } from '../../src/storage/sqlite.js';
import { CachedObjectStore } from '../../src/storage/cacher/cacher.js';
import { decode } from '../../src/storage/object-store.js';
import type { StoreWatchEvent } from '../../src/storage/object-store.js';
import type { KubeObject } from '../../src/machinery/meta.js';

async function fixture(t: { after(fn: () => unknown): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-written-events-'));
  const backend = SqliteBackend.open(join(dir, 'db.sqlite'));
  const writer = new CachedObjectStore({ backend, resource: { group: '', resource: 'configmaps' }, namespaced: true });
  const other = new CachedObjectStore({ backend, resource: { group: '', resource: 'configmaps' }, namespaced: true });
  await Promise.all([writer.start(), other.start()]);
  const seen = { writer: [] as StoreWatchEvent[], other: [] as StoreWatchEvent[] };
  const resourceVersion = String(await backend.currentRevision());
  const handles = await Promise.all(
    (['writer', 'other'] as const).map((name) => (name === 'writer' ? writer : other).watch('ns', { resourceVersion }, { onEvent: (e) => seen[name].push(e), onError: (err) => assert.fail(String(err)) })),
  );
  t.after(async () => {
    for (const h of handles) h.stop();
    writer.stop();
    other.stop();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { backend, writer, seen };
}

const managed = (time: string) => [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } }];

async function settled(seen: { writer: StoreWatchEvent[]; other: StoreWatchEvent[] }, n: number): Promise<void> {
  for (let i = 0; i < 200 && (seen.writer.length < n || seen.other.length < n); i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(seen.writer.length, n);
  assert.equal(seen.other.length, n);
}

test("a write's own watch event is the stored value's object, byte for byte", async (t) => {
  const f = await fixture(t);
  // Compact managedFields (last in metadata), plain JSON (managedFields not last), none at all.
  const compact = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', labels: { x: 'y' }, managedFields: managed('2026-11-28T10:00:00Z') }, data: { a: '1' } };
  const plain = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { managedFields: managed('2026-11-28T10:00:00Z'), name: 'b', namespace: 'ns' }, data: { a: 'é\u2028' } };
  const bare = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', resourceVersion: '999' }, binaryData: {}, data: { a: '3' } };
  const written = [compact, plain, bare].map((obj) => structuredClone(obj) as KubeObject);
  for (const obj of written) await f.writer.create('ns', obj.metadata.name!, obj);
  await f.writer.guaranteedUpdate('ns', 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, resourceVersion: '1', annotations: { n: '2' } }, data: { a: '2' } }));
  // A failed create (the name is taken) has no event; the next write of that key is seen as it is.
  await assert.rejects(f.writer.create('ns', 'c', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' }, data: { a: 'lost' } } as KubeObject));
  await f.writer.guaranteedUpdate('ns', 'c', (cur) => ({ ...cur!, data: { a: '4' } }));
  await settled(f.seen, 5);
  for (let i = 0; i < 5; i++) {
    const mine = f.seen.writer[i]!;
    const theirs = f.seen.other[i]!;
    const key = `/registry/configmaps/ns/${mine.object.metadata.name}`;
    const stored = (await f.backend.get(key, { revision: Number(mine.object.metadata.resourceVersion) })).kv!;
    const parsed = decode(stored.value, stored.modRevision);
    assert.equal(mine.type, theirs.type);
    assert.equal(JSON.stringify(mine.object), JSON.stringify(parsed), `event ${i}`);
    assert.equal(JSON.stringify(theirs.object), JSON.stringify(parsed), `event ${i} (other cache)`);
    assert.deepEqual(Object.keys(mine.object.metadata), Object.keys(parsed.metadata));
  }
  // The writer's cache did not parse its own creates: their nested values are the written ones.
  for (let i = 0; i < 3; i++) assert.equal(f.seen.writer[i]!.object['data'], written[i]!['data']);
  assert.notEqual(f.seen.other[0]!.object['data'], written[0]!['data']);
  assert.deepEqual(
    f.seen.writer.map((e) => [e.type, e.object.metadata.name, (e.object['data'] as { a: string }).a]),
    [
      ['ADDED', 'a', '1'],
      ['ADDED', 'b', 'é\u2028'],
      ['ADDED', 'c', '3'],
      ['MODIFIED', 'a', '2'],
      ['MODIFIED', 'c', '4'],
    ],
  );
});
