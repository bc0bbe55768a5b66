// Every verb on every built-in resource through RESTStore, on MemoryBackend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newTestRegistry, sample, statusOf } from './helpers.js';
import type { KubeObject } from '../../src/machinery/meta.js';
import type { WatchEvent } from '../../src/registry/rest.js';

test('every resource serves get, list, create, update, patch, delete, deletecollection and watch', async () => {
  const t = newTestRegistry();
  try {
    for (const store of t.registry.stores) {
      // Namespaces are held by their finalizer: their own test below.
      if (store.type.resource === 'namespaces') continue;
      // Resources with no storage (bindings, componentstatuses) serve a verb or two: their own tests.
      if (store.type.unstored === true) continue;
      // HNC's singletons (`hierarchy`, `config`) take no other name: test/tenancy covers them.
      if (store.type.group === 'hnc.x-k8s.io' && ['hierarchyconfigurations', 'hncconfigurations'].includes(store.type.resource)) continue;
      // An APIService's name is dictated by its spec (`<version>.<group>`): test/server/aggregator*.test.ts covers its verbs.
      if (store.type.group === 'apiregistration.k8s.io') continue;
      const { group, resource, namespaced, kind, listKind } = store.type;
      const ns = namespaced ? 'default' : '';
      const label = `${group}/${resource}`;

      const events: WatchEvent[] = [];
      let done = 0;
      const watcher = await store.watch(ns, { resourceVersion: String(await t.backend.currentRevision()) }, {
        event: (e) => events.push(e),
        done: () => done++,
      });

      const created = await store.create(ns, sample(group, resource, 'one'), {});
      assert.equal(created.kind, kind, label);
      assert.equal(created.metadata.name, 'one', label);
      assert.equal(created.metadata.namespace, namespaced ? 'default' : undefined, label);
      assert.match(created.metadata.uid ?? '', /^uid-/, label);
      assert.equal(created.metadata.creationTimestamp, '2026-01-02T03:04:05Z', label);
      assert.match(created.metadata.resourceVersion ?? '', /^\d+$/, label);

      const got = await store.get(ns, 'one', {});
      assert.deepEqual(got, created, label);

      const updatedBody = structuredClone(got);
      updatedBody.metadata.labels = { ...updatedBody.metadata.labels, updated: 'yes' };
      const updated = await store.update(ns, 'one', updatedBody, {});
      assert.equal(updated.created, false, label);
      assert.equal(updated.object.metadata.labels?.updated, 'yes', label);
      assert.ok(Number(updated.object.metadata.resourceVersion) > Number(created.metadata.resourceVersion), label);

      const patched = await store.patch(ns, 'one', (cur) => ({ ...cur, metadata: { ...cur.metadata, annotations: { a: 'b' } } }), {});
      assert.equal(patched.metadata.annotations?.a, 'b', label);

      await store.create(ns, sample(group, resource, 'two'), {});
      const list = await store.list(ns, {});
      assert.equal(list.kind, listKind, label);
      assert.deepEqual(list.items.map((i) => i.metadata.name).sort(), ['one', 'two'], label);
      assert.equal(list.items[0]!.kind, undefined, `${label}: list items carry no kind`);

      const { result, gone } = await store.delete(ns, 'one', { propagationPolicy: 'Background' }); // replication controllers orphan by default
      assert.equal(gone, true, label);
      await statusOf(store.get(ns, 'one', {})).then((s) => assert.equal(s.code, 404, label));
      if ((result as { kind?: string }).kind === 'Status') {
        assert.deepEqual(result, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Success',
          details: { name: 'one', ...(group !== '' ? { group } : {}), kind: resource, uid: created.metadata.uid },
        });
      } else {
        assert.equal((result as KubeObject).metadata.name, 'one', label);
      }

      if (store.type.verbs.includes('deletecollection')) {
        const deleted = await store.deleteCollection(ns, {}, { propagationPolicy: 'Background' });
        assert.deepEqual(deleted.items.map((i) => i.metadata.name), ['two'], label);
        assert.equal((await store.list(ns, {})).items.length, 0, label);
      }

      watcher.stop();
      assert.equal(done, 1, label);
      const types = events.map((e) => `${e.type}:${(e.object as KubeObject).metadata.name}`);
      assert.deepEqual(types.slice(0, 4), ['ADDED:one', 'MODIFIED:one', 'MODIFIED:one', 'ADDED:two'], label);
      assert.ok(types.includes('DELETED:one'), label);
    }
  } finally {
    await t.close();
  }
});

test('namespaces: delete marks Terminating until /finalize empties spec.finalizers', async () => {
  const t = newTestRegistry();
  try {
    const ns = t.store('', 'namespaces');
    const created = await ns.create('', { metadata: { name: 'team' } }, {});
    assert.deepEqual(created.spec, { finalizers: ['kubernetes'] });
    assert.deepEqual(created.status, { phase: 'Active' });

    // A spec write cannot change spec.finalizers or status.
    const edited = await ns.update('', 'team', { ...created, spec: { finalizers: [] }, status: { phase: 'Terminating' } }, {});
    assert.deepEqual(edited.object.spec, { finalizers: ['kubernetes'] });
    assert.deepEqual(edited.object.status, { phase: 'Active' });

    const first = await ns.delete('', 'team', {});
    assert.equal(first.gone, false);
    const held = first.result as KubeObject;
    assert.equal(held.kind, 'Namespace');
    assert.deepEqual(held.status, { phase: 'Terminating' });
    assert.equal(held.metadata.deletionTimestamp, '2026-01-02T03:04:05Z');

    // A second DELETE while Terminating changes nothing and answers the namespace.
    const again = await ns.delete('', 'team', {});
    assert.equal(again.gone, false);
    assert.deepEqual(again.result, held);

    const fin = await ns.update('', 'team', { ...held, spec: { finalizers: [] }, metadata: { ...held.metadata, labels: { x: 'y' } } }, {
      subresource: 'finalize',
    });
    // As upstream's finalize strategy: the body's spec and metadata are taken, the status is kept.
    assert.deepEqual(fin.object.metadata.labels, { x: 'y', 'kubernetes.io/metadata.name': 'team' });
    assert.equal((await statusOf(ns.get('', 'team', {}))).code, 404);
  } finally {
    await t.close();
  }
});
