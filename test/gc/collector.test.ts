// The garbage collector end to end: a real server (sqlite, HTTP on 127.0.0.1)
// with apiary's controllers over the client library; owners and dependents
// written through the API, kubectl's --cascade. Every case runs twice: the
// monitors listing and watching over HTTP (`apiary controller-manager`, or a
// resource an aggregated server serves), and through the server's in-process
// reads (as `apiary serve` runs them, src/server/in-process-reads.ts).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, RestClient } from '../../src/client/index.js';
import { startCluster, waitFor, type Cluster } from '../namespaces/helpers.js';
import { runKubectl } from '../helpers/kubectl.js';

let cluster: Cluster;
let client: RestClient;

async function startWith(inProcessReads: boolean): Promise<void> {
  cluster = await startCluster({ controllers: { gcDiscoveryPeriodMs: 1_000 }, inProcessReads });
  client = cluster.client;
  await cluster.controllers!.garbageCollector!.whenSynced();
}

async function ns(name: string): Promise<string> {
  await client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

function ref(owner: KubeObject, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: owner.apiVersion ?? 'v1', kind: owner.kind ?? 'ConfigMap', name: owner.metadata.name, uid: owner.metadata.uid, ...extra };
}

async function cm(namespace: string, name: string, owners: Record<string, unknown>[] = []): Promise<KubeObject> {
  const metadata: Record<string, unknown> = { name };
  if (owners.length > 0) metadata['ownerReferences'] = owners;
  const obj = await client.configMaps(namespace).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata } as KubeObject);
  return { ...obj, apiVersion: 'v1', kind: 'ConfigMap' };
}

async function gone(namespace: string, name: string): Promise<true | undefined> {
  try {
    await client.configMaps(namespace).get(name);
    return undefined;
  } catch (err) {
    if ((err as { reason?: string }).reason === 'NotFound') return true;
    throw err;
  }
}

for (const inProcess of [false, true]) describe(`garbage collector (${inProcess ? 'in-process reads' : 'over HTTP'})`, () => {
  before(() => startWith(inProcess));
  after(() => cluster?.stop());

  it('collects dependents of a deleted owner (background) and keeps those with another live owner', async () => {
    const n = await ns('gc-bg');
    const owner = await cm(n, 'owner');
    const other = await cm(n, 'other');
    await cm(n, 'dep1', [ref(owner)]);
    await cm(n, 'dep2', [ref(owner), ref(other)]);
    await client.configMaps(n).delete('owner', { propagationPolicy: 'Background' });
    await waitFor('dep1 collected', () => gone(n, 'dep1'));
    // dep2 still has a live owner: only the dangling reference goes.
    const dep2 = await waitFor('dep2 loses the dangling reference', async () => {
      const d = await client.configMaps(n).get('dep2');
      return d.metadata.ownerReferences?.length === 1 ? d : undefined;
    });
    assert.equal(dep2.metadata.ownerReferences?.[0]?.uid, other.metadata.uid);
  });

  it('deletes a dependent whose owner never existed or has another uid, in either creation order', async () => {
    const n = await ns('gc-order');
    await cm(n, 'orphan-ref', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nobody', uid: '00000000-0000-0000-0000-000000000001' }]);
    await waitFor('dependent of a missing owner collected', () => gone(n, 'orphan-ref'));
    // The owner's name exists but with another uid: dangling too.
    await cm(n, 'owner');
    await cm(n, 'wrong-uid', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '00000000-0000-0000-0000-000000000002' }]);
    await waitFor('dependent of a recreated owner collected', () => gone(n, 'wrong-uid'));
    // Dependent first naming an owner that is created right after, under the uid the dependent names: impossible
    // to choose a uid, so: owner created, dependent created, both stay.
    const owner2 = await cm(n, 'owner2');
    await cm(n, 'kept', [ref(owner2)]);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(await gone(n, 'kept'), undefined);
  });

  it('foreground: the owner stays with foregroundDeletion until its blocking dependents are gone', async () => {
    const n = await ns('gc-fg');
    const owner = await cm(n, 'owner');
    await cm(n, 'child', [ref(owner, { blockOwnerDeletion: true })]);
    const res = (await client.configMaps(n).delete('owner', { propagationPolicy: 'Foreground' })) as KubeObject;
    assert.deepEqual(res.metadata.finalizers, ['foregroundDeletion']);
    assert.ok(res.metadata.deletionTimestamp);
    await waitFor('child collected', () => gone(n, 'child'));
    await waitFor('owner gone after its dependents', () => gone(n, 'owner'));
  });

  it('foreground through a chain: grandchildren go first, then children, then the owner', async () => {
    const n = await ns('gc-chain');
    const owner = await cm(n, 'a');
    const b = await cm(n, 'b', [ref(owner, { blockOwnerDeletion: true })]);
    await cm(n, 'c', [ref(b, { blockOwnerDeletion: true })]);
    await client.configMaps(n).delete('a', { propagationPolicy: 'Foreground' });
    await waitFor('a gone', () => gone(n, 'a'));
    assert.equal(await gone(n, 'b'), true);
    assert.equal(await gone(n, 'c'), true);
  });

  it('orphan: dependents lose the reference and stay; the owner goes once they are orphaned', async () => {
    const n = await ns('gc-orphan');
    const owner = await cm(n, 'owner');
    const keep = await cm(n, 'keep');
    await cm(n, 'child', [ref(owner), ref(keep)]);
    await cm(n, 'child2', [ref(owner)]);
    const res = (await client.configMaps(n).delete('owner', { propagationPolicy: 'Orphan' })) as KubeObject;
    assert.deepEqual(res.metadata.finalizers, ['orphan']);
    await waitFor('owner gone', () => gone(n, 'owner'));
    const child = await client.configMaps(n).get('child');
    assert.deepEqual(child.metadata.ownerReferences?.map((o) => o.uid), [keep.metadata.uid]);
    const child2 = await client.configMaps(n).get('child2');
    assert.equal(child2.metadata.ownerReferences, undefined);
  });

  it('a cycle of owners is collected once one of them is deleted', async () => {
    const n = await ns('gc-cycle');
    const a = await cm(n, 'a');
    const b = await cm(n, 'b', [ref(a)]);
    await client.configMaps(n).patch('a', 'merge', { metadata: { ownerReferences: [ref(b)] } });
    await client.configMaps(n).delete('b', { propagationPolicy: 'Background' });
    await waitFor('a collected', () => gone(n, 'a'));
  });

  it('a foreground deletion through a blocking cycle completes', async () => {
    const n = await ns('gc-fgcycle');
    const a = await cm(n, 'a');
    const b = await cm(n, 'b', [ref(a, { blockOwnerDeletion: true })]);
    await client.configMaps(n).patch('a', 'merge', { metadata: { ownerReferences: [ref(b, { blockOwnerDeletion: true })] } });
    await client.configMaps(n).delete('a', { propagationPolicy: 'Foreground' });
    await waitFor('a gone', () => gone(n, 'a'), 15_000);
    await waitFor('b gone', () => gone(n, 'b'), 15_000);
  });

  it('an owner in another namespace is not an owner: the dependent is collected, with an OwnerRefInvalidNamespace event', async () => {
    const a = await ns('gc-ns-a');
    const b = await ns('gc-ns-b');
    const owner = await cm(a, 'owner');
    await cm(b, 'dep', [ref(owner)]);
    await waitFor('cross-namespace dependent collected', () => gone(b, 'dep'));
    assert.equal(await gone(a, 'owner'), undefined);
    const event = await waitFor('OwnerRefInvalidNamespace event', async () => {
      const list = await client.events(b).list();
      return list.items.find((e) => (e as unknown as { reason?: string }).reason === 'OwnerRefInvalidNamespace');
    });
    const e = event as unknown as { type: string; message: string; involvedObject: { name: string } };
    assert.equal(e.type, 'Warning');
    assert.equal(e.involvedObject.name, 'dep');
    assert.equal(e.message, `ownerRef [v1/ConfigMap, namespace: ${b}, name: owner, uid: ${owner.metadata.uid}] does not exist in namespace "${b}"`);
  });

  it('a namespaced dependent of a cluster-scoped owner (a namespace) is collected with it', async () => {
    const owner = await client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gc-cluster-owner' } });
    const n = await ns('gc-cluster-dep');
    await cm(n, 'dep', [{ apiVersion: 'v1', kind: 'Namespace', name: owner.metadata.name, uid: owner.metadata.uid }]);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await gone(n, 'dep'), undefined);
    await client.namespaces().delete('gc-cluster-owner');
    await waitFor('dependent of the deleted namespace collected', () => gone(n, 'dep'), 15_000);
  });

  it('custom resources are watched once their CRD appears: a CR owner collects its configmaps', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.gc.example.com' },
      spec: {
        group: 'gc.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    await client.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }).create(crd as unknown as KubeObject);
    const widgets = client.resource({ group: 'gc.example.com', version: 'v1', resource: 'widgets' });
    const n = await ns('gc-cr');
    const w = await waitFor('CRD served', async () => {
      try {
        return await widgets.namespace(n).create({ apiVersion: 'gc.example.com/v1', kind: 'Widget', metadata: { name: 'w' } } as KubeObject);
      } catch {
        return undefined;
      }
    });
    await cm(n, 'dep', [{ apiVersion: 'gc.example.com/v1', kind: 'Widget', name: 'w', uid: w.metadata.uid, blockOwnerDeletion: true }]);
    await waitFor('widgets monitored', async () => (cluster.controllers!.garbageCollector!.monitoredResources().includes('widgets.gc.example.com') ? true : undefined));
    await widgets.namespace(n).delete('w', { propagationPolicy: 'Foreground' });
    await waitFor('configmap of the widget collected', () => gone(n, 'dep'));
    await waitFor('widget gone', async () => {
      try {
        await widgets.namespace(n).get('w');
        return undefined;
      } catch {
        return true;
      }
    });
  });

  it('kubectl delete --cascade=foreground|background|orphan', async () => {
    const n = await ns('gc-kubectl');
    const kc = cluster.server.kubeconfigPath;
    for (const cascade of ['foreground', 'background', 'orphan']) {
      const owner = await cm(n, `owner-${cascade}`);
      await cm(n, `dep-${cascade}`, [ref(owner, { blockOwnerDeletion: true })]);
      const out = await runKubectl(kc, ['-n', n, 'delete', 'configmap', `owner-${cascade}`, `--cascade=${cascade}`, '--wait=true']);
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stdout, new RegExp(`configmap "owner-${cascade}" deleted`));
      assert.equal(await gone(n, `owner-${cascade}`), true);
      if (cascade === 'orphan') {
        const dep = await client.configMaps(n).get(`dep-${cascade}`);
        assert.equal(dep.metadata.ownerReferences, undefined);
      } else if (cascade === 'foreground') {
        // --wait waited for the owner, which waited for its blocking dependent.
        assert.equal(await gone(n, `dep-${cascade}`), true);
      } else {
        await waitFor('background dependent collected', () => gone(n, `dep-${cascade}`));
      }
    }
  });
});
