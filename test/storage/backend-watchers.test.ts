// BackendWatchers groups its watchers by their prefix's first three path
// segments: every watcher must still get exactly the events under its prefix
// (prefixes shorter than a group, without a trailing slash, or of one key
// included), in order, and progress for the batches that did not concern it
// (pulled from the handle, or pushed while the watcher asks for it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BackendWatchers } from '../../src/storage/backend-watchers.js';
import type { WatchEvent } from '../../src/storage/interface.js';

const put = (key: string, revision: number): WatchEvent => ({ type: 'put', kv: { key, value: 'v', createRevision: revision, modRevision: revision } });

test('grouped watchers get exactly the events under their prefixes, and progress for the rest', async () => {
  const watchers = new BackendWatchers(() => []);
  const prefixes = ['', '/', '/registry/', '/registry/configmaps', '/registry/configmaps/', '/registry/configmaps/ns1/', '/registry/configmaps/ns1/a', '/registry/secrets/', '/other/x/'];
  const seen = new Map<string, string[]>(prefixes.map((p) => [p, []]));
  const progress = new Map<string, number>(prefixes.map((p) => [p, 0]));
  const handles = prefixes.map((prefix) =>
    watchers.add(prefix, 0, {
      onEvents: (events) => seen.get(prefix)!.push(...events.map((e) => `${e.type === 'put' ? e.kv.key : e.key}@${e.type === 'put' ? e.kv.modRevision : e.revision}`)),
      onProgress: (revision) => progress.set(prefix, revision),
      onError: (err) => assert.fail(String(err)),
    }),
  );
  await new Promise((r) => queueMicrotask(() => r(undefined))); // the replays (empty) are done
  const keys = ['/registry/configmaps/ns1/a', '/registry/configmaps/ns2/b', '/registry/configmapsx/ns1/c', '/registry/secrets/ns1/s', '/registry/x', '/other/x/y', '/registry/configmaps/ns1/ab'];
  let revision = 0;
  const batches = [[keys[0]!, keys[1]!], [keys[2]!], [keys[3]!, keys[4]!, keys[5]!], [keys[6]!, keys[0]!]];
  const all: string[] = [];
  for (const batch of batches) {
    const events = batch.map((key) => put(key, ++revision));
    all.push(...batch.map((key, i) => `${key}@${revision - batch.length + 1 + i}`));
    watchers.publish(events);
  }
  for (const [i, prefix] of prefixes.entries()) {
    assert.deepEqual(seen.get(prefix), all.filter((e) => e.startsWith(prefix)), prefix);
    // Up to the last batch: progress is pulled, never pushed unless asked for.
    assert.equal(progress.get(prefix), 0, `${prefix}: no progress pushed`);
    assert.equal(handles[i]!.progress?.(), revision, `${prefix}: knows it is current`);
  }
  // A watcher that asks for pushes is told after each batch that did not concern it.
  handles[7]!.pushProgress?.(true);
  watchers.publish([put('/registry/configmaps/ns1/b', ++revision)]);
  assert.equal(progress.get('/registry/secrets/'), revision);
  assert.equal(progress.get('/other/x/'), 0);
  handles[7]!.pushProgress?.(false);
  watchers.publish([put('/registry/configmaps/ns1/c', ++revision)]);
  assert.equal(progress.get('/registry/secrets/'), revision - 1);
  assert.equal(handles[7]!.progress?.(), revision);
  // A cancelled watcher hears nothing more; the others go on.
  handles[4]!.cancel();
  watchers.publish([put('/registry/configmaps/ns3/z', ++revision)]);
  assert.equal(seen.get('/registry/configmaps/')!.includes(`/registry/configmaps/ns3/z@${revision}`), false);
  assert.equal(seen.get('/registry/configmaps')!.at(-1), `/registry/configmaps/ns3/z@${revision}`);
  assert.equal(watchers.size, prefixes.length - 1);
});
