// NamespaceLifecycle's reads: the cache first, storage only when the cache
// cannot answer or cannot be trusted (a deletion this plugin let through).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NamespaceLifecycle, RECENT_DELETE_TTL_MS } from '../../src/admission/namespace-lifecycle.js';
import type { AdmissionAttributes } from '../../src/admission/interface.js';
import type { Namespace } from '../../src/api/core/v1/types.js';
import { StatusError } from '../../src/machinery/errors.js';

const active = (name: string, uid = `uid-${name}`): Namespace => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, uid },
  status: { phase: 'Active' },
});
const terminating = (name: string, uid = `uid-${name}`): Namespace => ({
  ...active(name, uid),
  metadata: { name, uid, deletionTimestamp: '2024-01-01T00:00:00Z' },
  status: { phase: 'Terminating' },
});

const configMap = (operation: AdmissionAttributes['operation'], namespace: string): AdmissionAttributes => ({
  operation,
  kind: { group: '', version: 'v1', kind: 'ConfigMap' },
  resource: { group: '', version: 'v1', resource: 'configmaps' },
  subresource: '',
  namespace,
  name: 'cm',
  dryRun: false,
});
const namespaceDelete = (ns: Namespace): AdmissionAttributes => ({
  operation: 'DELETE',
  kind: { group: '', version: 'v1', kind: 'Namespace' },
  resource: { group: '', version: 'v1', resource: 'namespaces' },
  subresource: '',
  namespace: '',
  name: ns.metadata.name!,
  oldObject: ns,
  dryRun: false,
});

/** A plugin over two maps (cache and storage) that counts storage reads. */
function setup(): { plugin: NamespaceLifecycle; cache: Map<string, Namespace>; storage: Map<string, Namespace>; liveReads: () => number; clock: { now: number } } {
  const cache = new Map<string, Namespace>();
  const storage = new Map<string, Namespace>();
  const clock = { now: 1_000_000 };
  let live = 0;
  const plugin = new NamespaceLifecycle({
    getNamespace: async (name) => {
      live++;
      return storage.get(name);
    },
    getCachedNamespace: (name) => cache.get(name),
    now: () => clock.now,
    sleep: async () => {},
  });
  return { plugin, cache, storage, liveReads: () => live, clock };
}

/** The status code a call refuses with (0: admitted); a refusal from the cache is thrown at once, a live one rejects. */
async function status(call: () => Promise<void> | void): Promise<number> {
  try {
    await call();
    return 0;
  } catch (err) {
    assert.ok(err instanceof StatusError);
    return err.code;
  }
}

test('a create into a namespace the cache holds as Active makes no storage read', async () => {
  const { plugin, cache, storage, liveReads } = setup();
  cache.set('a', active('a'));
  storage.set('a', active('a'));
  for (let i = 0; i < 5; i++) await plugin.admit(configMap('CREATE', 'a'));
  await plugin.admit(configMap('UPDATE', 'a'));
  assert.equal(liveReads(), 0);
});

test('a namespace missing from the cache is read from storage: just created passes, absent is 404', async () => {
  const { plugin, storage, liveReads } = setup();
  storage.set('fresh', active('fresh'));
  await plugin.admit(configMap('CREATE', 'fresh'));
  assert.equal(liveReads(), 1);
  assert.equal(await status(() => plugin.admit(configMap('CREATE', 'missing'))), 404);
  assert.equal(await status(() => plugin.admit(configMap('UPDATE', 'missing'))), 404);
});

test('Terminating in the cache refuses creates without a storage read; updates pass', async () => {
  const { plugin, cache, liveReads } = setup();
  cache.set('t', terminating('t'));
  assert.equal(await status(() => plugin.admit(configMap('CREATE', 't'))), 403);
  await plugin.admit(configMap('UPDATE', 't'));
  assert.equal(liveReads(), 0);
});

test('after admitting a namespace DELETE, a cache that still says Active is not trusted (for that uid, for a while)', async () => {
  const { plugin, cache, storage, liveReads, clock } = setup();
  cache.set('d', active('d'));
  storage.set('d', active('d'));
  await plugin.admit(namespaceDelete(active('d')));
  // The DELETE is written; the cache has not seen it yet.
  storage.set('d', terminating('d'));
  assert.equal(await status(() => plugin.admit(configMap('CREATE', 'd'))), 403);
  assert.equal(liveReads(), 1);
  // A namespace of the same name but another uid (recreated) is trusted from the cache.
  cache.set('d', active('d', 'other-uid'));
  storage.set('d', active('d', 'other-uid'));
  await plugin.admit(configMap('CREATE', 'd'));
  assert.equal(liveReads(), 1);
  // Once the window has passed, the cache is trusted again.
  cache.set('d', active('d'));
  clock.now += RECENT_DELETE_TTL_MS + 1;
  await plugin.admit(configMap('CREATE', 'd'));
  assert.equal(liveReads(), 1);
});

test('immortal namespaces may not be deleted, whatever the cache says', async () => {
  const { plugin } = setup();
  assert.equal(await status(() => plugin.admit(namespaceDelete(active('default')))), 403);
  await plugin.admit(namespaceDelete(active('kube-node-lease')));
});
