// CustomResourceServing names and establishes a CRD even when its status write
// fails once with an error no later event follows (a timeout, storage away):
// the sync is retried with backoff, as upstream's controllers requeue. The
// registry and its store are real (memory backend); only the CRD store's first
// status writes are made to fail.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBackend } from '../../src/storage/memory.js';
import { createRegistry } from '../../src/registry/index.js';
import { CustomResourceServing } from '../../src/apiextensions/serving.js';
import { crdCatalogEntry } from '../../src/apiextensions/index.js';
import { serverTimeout } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/meta.js';
import type { RESTStore } from '../../src/registry/rest.js';
import { until } from '../helpers/wait.js';

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.retry.example.com' },
  spec: {
    group: 'retry.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
} as unknown as KubeObject;

test('a CRD whose status writes fail twice with a timeout is still named, established and served', async (t) => {
  const backend = new MemoryBackend();
  const registry = createRegistry({ backend, extraEntries: [crdCatalogEntry()] });
  await registry.ready;
  const crds = registry.storeFor('apiextensions.k8s.io', 'customresourcedefinitions')!;
  let failures = 2;
  let statusWrites = 0;
  // The real store, but its first two status writes time out (after nothing was written).
  const flaky: RESTStore = Object.assign(Object.create(crds) as RESTStore, {
    update: (...args: Parameters<RESTStore['update']>) => {
      statusWrites++;
      if (failures-- > 0) return Promise.reject(serverTimeout({ group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' }, 'update', 1));
      return crds.update(...args);
    },
  });
  const serving = new CustomResourceServing({ registry, crdStore: flaky });
  t.after(async () => {
    serving.stop();
    await registry.close();
    await backend.close();
  });
  await serving.start();
  await crds.create('', structuredClone(crd), {});

  let conditions: { type: string; status: string }[] = [];
  await until('the CRD established', async () => {
    const got = (await crds.get('', 'widgets.retry.example.com', {})) as { status?: { conditions?: { type: string; status: string }[] } };
    conditions = got.status?.conditions ?? [];
    return conditions.some((c) => c.type === 'Established' && c.status === 'True');
  }, 5000);
  assert.deepEqual(
    conditions.map((c) => [c.type, c.status]),
    [
      ['NamesAccepted', 'True'],
      ['Established', 'True'],
    ],
  );
  assert.equal(statusWrites, 3, 'two failed writes, then the one that took');
  assert.ok(registry.storeFor('retry.example.com', 'widgets'), 'the custom resource is served');
});
