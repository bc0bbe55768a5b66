// Local backends' watch progress is pulled by the watch caches, not pushed per
// resource per batch (storage/backend-watchers.ts): what a client sees of a
// resource nobody writes must still move with writes elsewhere — a list at
// resourceVersion 0, a bookmark, a read waiting for a newer revision.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRegistry } from '../../src/registry/index.js';
import { SqliteBackend } from '../../src/storage/sqlite.js';
import type { WatchEvent } from '../../src/registry/rest.js';

test('a quiet resource on SQLite: list at 0, bookmarks and a wait for a revision follow writes to other resources', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-pulled-progress-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const backend = SqliteBackend.open(path.join(dir, 'state.db'));
  const registry = createRegistry({ backend, bookmarkIntervalMs: 50 });
  try {
    await registry.ready;
    const store = (resource: string) => registry.storeFor('', resource)!;
    await store('namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo' } }, {});
    const secrets = store('secrets');
    // A watch with bookmarks on secrets, started before the writes.
    const events: WatchEvent[] = [];
    const watch = await secrets.watch('demo', { allowWatchBookmarks: true, resourceVersion: '0', sendInitialEvents: false }, { event: (e) => events.push(e), done: () => {} });
    t.after(() => watch.stop());

    let last = '';
    for (let i = 0; i < 5; i++) last = (await store('configmaps').create('demo', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` } }, {})).metadata.resourceVersion!;

    const listed = await secrets.list('demo', { resourceVersion: '0' });
    assert.equal(listed.metadata.resourceVersion, last, 'a list at 0 of the quiet resource is at the newest write anywhere');

    // The next bookmark names that revision too.
    const deadline = Date.now() + 5000;
    while (!events.some((e) => e.type === 'BOOKMARK' && e.object.metadata.resourceVersion === last) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const bookmarks = events.filter((e) => e.type === 'BOOKMARK').map((e) => e.object.metadata.resourceVersion);
    assert.ok(bookmarks.includes(last), `a bookmark at ${last}, got ${bookmarks.join(',')}`);
    assert.equal(events.filter((e) => e.type !== 'BOOKMARK').length, 0);

    // A read waiting for a revision that only a later write elsewhere brings is
    // answered once it lands (with no bookmarking watch left to pull progress).
    watch.stop();
    const next = String(Number(last) + 1);
    let early = false;
    const waiting = secrets.list('demo', { resourceVersion: next, resourceVersionMatch: 'NotOlderThan' });
    void waiting.then(() => (early = true), () => (early = true));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(early, false, `the read at ${next} waits (the backend is at ${await backend.currentRevision()})`);
    await store('configmaps').create('demo', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'later' } }, {});
    const answered = await waiting;
    assert.equal(answered.metadata.resourceVersion, next);
  } finally {
    await registry.close();
    await backend.close();
  }
});
