// A namespace holding a large object still finishes Terminating (issue 29,
// part 4). The server stores objects of at most 256 KiB here
// (--max-object-size-bytes); the namespace holds a ConfigMap near that size
// whose 6,000 finalizers each name themselves in upstream's
// NamespaceFinalizersRemaining message — a message larger than any object the
// server may store. The controller still records why it waits (its message
// cut to a bounded length), and once the finalizers go the namespace goes.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { NamespaceCondition } from '../../src/api/core/v1/types.js';
import { MAX_CONDITION_MESSAGE } from '../../src/controllers/namespace/conditions.js';
import { type Cluster, cm, ns, startCluster, waitFor, waitGone } from './helpers.js';

let cluster: Cluster;
before(async () => {
  cluster = await startCluster({ server: { maxObjectSizeBytes: 256 * 1024 } });
});
after(() => cluster.stop());

test('a namespace whose content carries thousands of finalizers records its conditions and finishes Terminating', { timeout: 60_000 }, async () => {
  const { client } = cluster;
  await client.namespaces().create(ns('holder'));
  const finalizers = Array.from({ length: 6000 }, (_, i) => `example.com/finalizer-${i}`);
  const configMaps = client.resource({ group: '', version: 'v1', resource: 'configmaps' }).namespace('holder');
  await configMaps.create({ ...cm('large', { finalizers }), data: { blob: 'x'.repeat(60_000) } });

  await client.namespaces().delete('holder');
  const conditions = await waitFor('the finalizers-remaining condition', async () => {
    const current = await client.namespaces().get('holder');
    const found = ((current.status as { conditions?: NamespaceCondition[] } | undefined)?.conditions ?? []).find(
      (c) => c.type === 'NamespaceFinalizersRemaining' && c.status === 'True',
    );
    return found;
  }, 20_000);
  assert.equal(conditions.reason, 'SomeFinalizersRemain');
  assert.match(conditions.message ?? '', /^Some content in the namespace has finalizers remaining: example\.com\/finalizer-0 in 1 resource instances, /);
  assert.ok((conditions.message ?? '').length < MAX_CONDITION_MESSAGE + 100, `message of ${(conditions.message ?? '').length} characters`);

  // The finalizers' owner lets go: the object goes, then the namespace.
  await configMaps.patch('large', 'merge', { metadata: { finalizers: null } });
  await waitGone(client, 'holder', 20_000);
});
