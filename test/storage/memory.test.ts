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
