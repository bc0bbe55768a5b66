// guaranteedUpdate from a cached state (upstream's cachedExistingObject): the
// state a watch cache holds is tried first instead of a read; a stale one
// never decides the outcome, on a real MemoryBackend.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBackend } from '../../src/storage/memory.js';
import { BackendObjectStore } from '../../src/storage/object-store.js';
import { StatusError } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/meta.js';

async function fixture(t: { after(fn: () => unknown): void }) {
  const backend = new MemoryBackend();
  t.after(() => backend.close());
  const store = new BackendObjectStore({ backend, resource: { group: '', resource: 'configmaps' }, namespaced: true });
  const cm = (v: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' }, data: { v } }) as KubeObject;
  await store.create('ns', 'a', cm('1'));
  const key = store.keyFor('ns', 'a');
  const stale = (await backend.get(key)).kv!;
  await store.guaranteedUpdate('ns', 'a', () => cm('2'));
  let gets = 0;
  const get = backend.get.bind(backend);
  backend.get = (...args: Parameters<typeof get>) => {
    gets++;
    return get(...args);
  };
  return { backend, store, cm, key, stale, reads: () => gets };
}

test('a current cached state spares the read', async (t) => {
  const f = await fixture(t);
  const current = (await f.backend.get(f.key)).kv!;
  const before = f.reads();
  const res = await f.store.guaranteedUpdate('ns', 'a', () => f.cm('3'), { cached: current });
  assert.equal(f.reads(), before);
  assert.deepEqual(res.object.data, { v: '3' });
});

test('a stale cached state loses the compare-and-swap and the update runs again on what is stored', async (t) => {
  const f = await fixture(t);
  const seen: string[] = [];
  const res = await f.store.guaranteedUpdate(
    'ns',
    'a',
    (cur) => {
      seen.push(String(cur?.['data'] && (cur['data'] as Record<string, string>)['v']));
      return { ...cur!, data: { v: `${(cur!['data'] as Record<string, string>)['v']}+` } };
    },
    { cached: f.stale },
  );
  assert.deepEqual(seen, ['1', '2']);
  assert.deepEqual(res.object.data, { v: '2+' });
});

test('an update refused on a stale cached state is decided again on a fresh read', async (t) => {
  const f = await fixture(t);
  const res = await f.store.guaranteedUpdate(
    'ns',
    'a',
    (cur) => {
      if ((cur!['data'] as Record<string, string>)['v'] !== '2') throw new StatusError(409, 'Conflict', 'the object has been modified');
      return f.cm('3');
    },
    { cached: f.stale },
  );
  assert.deepEqual(res.object.data, { v: '3' });
  // On a fresh state the refusal stands.
  await assert.rejects(
    f.store.guaranteedUpdate('ns', 'a', () => {
      throw new StatusError(409, 'Conflict', 'the object has been modified');
    }, { cached: f.stale }),
    (err: unknown) => err instanceof StatusError && err.code === 409,
  );
});

test('a write equal to a stale cached state is not taken for no change', async (t) => {
  const f = await fixture(t);
  // Writing v=1 again: equal to the stale state, but the store holds v=2, so it must be written.
  const res = await f.store.guaranteedUpdate('ns', 'a', () => f.cm('1'), { cached: f.stale });
  assert.deepEqual(res.object.data, { v: '1' });
  assert.deepEqual(JSON.parse(JSON.stringify((await f.store.get('ns', 'a')).data)), { v: '1' });
  assert.ok(Number(res.object.metadata.resourceVersion) > f.stale.modRevision + 1);
});
