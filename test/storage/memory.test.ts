// Runs the Backend conformance suite against MemoryBackend, plus its TTL sweep.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBackend } from '../../src/storage/memory.js';
import type { WatchEvent } from '../../src/storage/interface.js';
import { runBackendConformance } from './conformance.js';

runBackendConformance('memory', async () => {
  const backend = new MemoryBackend();
  return { backend, cleanup: () => backend.close() };
});

test('memory: expired keys are swept through the delete path and watchers see the deletion', async (t) => {
  let now = 1_000_000;
  const backend = new MemoryBackend({ now: () => now });
  t.after(() => backend.close());
  const events: WatchEvent[] = [];
  backend.watch('/registry/events/', 0, { onEvents: (e) => events.push(...e), onError: () => {} });
  await backend.create('/registry/events/default/e1', 'short', { ttlSeconds: 10 });
  await backend.create('/registry/events/default/e2', 'long', { ttlSeconds: 100 });
  await backend.create('/registry/events/default/e3', 'forever');
  now += 11_000;
  assert.equal(await backend.sweepExpired(), 1);
  assert.equal((await backend.get('/registry/events/default/e1')).kv, null);
  assert.equal((await backend.get('/registry/events/default/e2')).kv?.value, 'long');
  // Rewriting without a TTL drops the expiry.
  await backend.update('/registry/events/default/e2', 'kept');
  now += 200_000;
  assert.equal(await backend.sweepExpired(), 0);
  assert.equal((await backend.get('/registry/events/default/e3')).kv?.value, 'forever');
  await new Promise((r) => setImmediate(r));
  const deletion = events.find((e) => e.type === 'delete');
  assert.equal(deletion?.type === 'delete' ? deletion.prevKv.value : undefined, 'short');
});

test('memory: a watcher that writes from its handler does not make another watcher miss events', async (t) => {
  const backend = new MemoryBackend();
  t.after(() => backend.close());
  const seenByReactor: number[] = [];
  const seenByObserver: number[] = [];
  const revisionOf = (e: WatchEvent) => (e.type === 'put' ? e.kv.modRevision : e.revision);
  backend.watch('/registry/', 0, {
    onEvents: (events) => {
      for (const e of events) {
        seenByReactor.push(revisionOf(e));
        // React to the first object by writing another one, as a controller would.
        if (e.type === 'put' && e.kv.key === '/registry/a') void backend.create('/registry/b', 'from handler');
      }
    },
    onError: () => {},
  });
  backend.watch('/registry/', 0, { onEvents: (events) => seenByObserver.push(...events.map(revisionOf)), onError: () => {} });
  await new Promise((r) => setImmediate(r)); // both watches are live
  await backend.create('/registry/a', 'first');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(seenByReactor, [1, 2]);
  assert.deepEqual(seenByObserver, [1, 2]);
});
