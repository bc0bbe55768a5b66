// Three apiary servers on one etcd: a CRD created through one is established
// once and served by all of them (each server follows CRDs through its own
// watch), a custom resource written through any server is read and watched on
// the others, a schema change made through one applies to writes on the
// others, and a deletion stops serving everywhere.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/machinery/meta.js';
import { isNotFound, isStatusError } from '../../src/machinery/errors.js';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { collect, ensureNamespace, startApiaryOnEtcd, type ApiaryOnEtcd } from './helpers.js';
import { until } from '../helpers/wait.js';

const T = () => ({ signal: AbortSignal.timeout(10_000) });
const CRD_GVR = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
const GIZMOS = { group: 'multi.example.com', version: 'v1', resource: 'gizmos' };

let etcd: EtcdCluster;
let servers: ApiaryOnEtcd[] = [];

function crd(maxSize: number): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gizmos.multi.example.com' },
    spec: {
      group: 'multi.example.com',
      scope: 'Namespaced',
      names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', maximum: maxSize } } } } } },
        },
      ],
    },
  } as KubeObject;
}

const gizmo = (name: string, size: number): KubeObject => ({ apiVersion: 'multi.example.com/v1', kind: 'Gizmo', metadata: { name }, spec: { size } }) as KubeObject;

async function served(s: ApiaryOnEtcd): Promise<boolean> {
  try {
    await s.client.resource(GIZMOS).namespace('multi').list(T());
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

before(async () => {
  etcd = await startEtcd();
  servers = [await startApiaryOnEtcd(etcd.endpoints), await startApiaryOnEtcd(etcd.endpoints), await startApiaryOnEtcd(etcd.endpoints)];
  await ensureNamespace(servers[0]!.client, 'multi');
});
after(async () => {
  await Promise.allSettled(servers.map((s) => s.stop()));
  await etcd?.stop();
});

test('a CRD created through one server is established and served by every server', async () => {
  await servers[1]!.client.resource(CRD_GVR).create(crd(10), T());
  for (const s of servers) await until('gizmos served on every server', () => served(s), 5000);
  const stored = await servers[2]!.client.resource<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(CRD_GVR).get('gizmos.multi.example.com', T());
  const established = stored.status?.conditions?.filter((c) => c.type === 'Established') ?? [];
  assert.deepEqual(established.map((c) => c.status), ['True']);
});

test('custom resources written through any server are read and watched on the others', async () => {
  const list = await servers[2]!.client.resource(GIZMOS).namespace('multi').list(T());
  const watch = collect(await servers[2]!.client.resource(GIZMOS).namespace('multi').watch({ resourceVersion: list.metadata?.resourceVersion, ...T() }));
  try {
    await servers[0]!.client.resource(GIZMOS).namespace('multi').create(gizmo('from-a', 1), T());
    await servers[1]!.client.resource(GIZMOS).namespace('multi').create(gizmo('from-b', 2), T());
    await until('both events on the third server', () => watch.events.filter((e) => e.type === 'ADDED').length === 2);
    assert.deepEqual(watch.events.filter((e) => e.type === 'ADDED').map((e) => (e.object as KubeObject).metadata.name), ['from-a', 'from-b']);
    const got = await servers[2]!.client.resource(GIZMOS).namespace('multi').get('from-a', T());
    assert.equal((got as KubeObject & { spec: { size: number } }).spec.size, 1);
  } finally {
    watch.stop();
  }
});

test('a schema change through one server applies to writes on the others', async () => {
  const client = servers[0]!.client.resource<KubeObject>(CRD_GVR);
  const current = await client.get('gizmos.multi.example.com', T());
  const next = crd(100);
  next.metadata = current.metadata;
  await client.update(next, T());
  await until('size 50 accepted by every server', async () => {
    for (const [i, s] of servers.entries()) {
      try {
        await s.client.resource(GIZMOS).namespace('multi').create(gizmo(`big-${i}-${Date.now()}`, 50), T());
      } catch (err) {
        if (isStatusError(err) && err.code === 422) return false;
        throw err;
      }
    }
    return true;
  }, 5000);
});

test('deleting the CRD stops serving it on every server', async () => {
  await servers[2]!.client.resource(CRD_GVR).delete('gizmos.multi.example.com', T());
  // No controller manager runs here: remove the cleanup finalizer as the controller would, after deleting the instances.
  await servers[2]!.client.resource(GIZMOS).namespace('multi').deleteCollection({}, {});
  const marked = await servers[2]!.client.resource<KubeObject>(CRD_GVR).get('gizmos.multi.example.com', T());
  marked.metadata.finalizers = [];
  await servers[2]!.client.resource(CRD_GVR).update(marked, T());
  for (const s of servers) await until('gizmos gone on every server', async () => !(await served(s)), 5000);
});
