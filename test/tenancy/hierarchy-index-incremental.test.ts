// The hierarchy index applies each change to the one namespace it concerns
// (issue 30: a full rebuild per namespace event made N namespaces cost N²).
// Over a random sequence of namespace and `hierarchy` writes on real stores
// (a registry over the memory backend), after every write the index that
// followed the changes answers exactly as a fresh index that listed
// everything (the full rebuild), and the namespaces it reported as affected
// include every namespace whose own answers changed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBackend } from '../../src/storage/memory.js';
import { createRegistry } from '../../src/registry/index.js';
import { HierarchyIndex } from '../../src/tenancy/hierarchy-index.js';
import { ANNOTATION_SUBNAMESPACE_OF, HIERARCHY_SINGLETON, HNC_GROUP } from '../../src/api/hnc/v1alpha2/types.js';
import type { KubeObject } from '../../src/machinery/meta.js';

const NAMES = Array.from({ length: 10 }, (_, i) => `n${i}`);

/** A small deterministic generator (the sequence is the same on every run). */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

/** What the index answers about each namespace; with `local`, what a namespace's own reconciliation reads (not its whole subtree). */
function snapshot(h: HierarchyIndex, local = false): Map<string, string> {
  const out = new Map<string, string>();
  for (const ns of [...NAMES, 'elsewhere']) {
    out.set(
      ns,
      JSON.stringify({
        exists: h.exists(ns),
        parent: h.parentOf(ns) ?? null,
        ancestors: h.ancestorsOf(ns),
        children: h.childrenOf(ns),
        descendants: local ? null : h.descendantsOf(ns),
        sub: h.isSubnamespace(ns),
        terminating: h.isTerminating(ns),
        treeLabelled: h.hasTreeLabels(ns),
        configured: h.hasConfiguration(ns),
        cascading: h.allowsCascadingDeletion(ns),
      }),
    );
  }
  return out;
}

test('the hierarchy index kept per change answers as one rebuilt from a full list, after every write', async () => {
  const backend = new MemoryBackend();
  const registry = createRegistry({ backend });
  await registry.ready;
  const source = { storeFor: (group: string, resource: string) => registry.storeFor(group, resource) };
  const namespaces = registry.storeFor('', 'namespaces')!;
  const hierarchies = registry.storeFor(HNC_GROUP, 'hierarchyconfigurations')!;
  const followed = new HierarchyIndex(source);
  await followed.start();
  const affected = { all: false, names: new Set<string>() };
  followed.onChangeOf((a) => {
    if (a === 'all') affected.all = true;
    else for (const ns of a) affected.names.add(ns);
  });
  let previous = snapshot(followed, true);
  const random = rng(30);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  try {
    for (let step = 0; step < 160; step++) {
      const ns = pick(NAMES);
      const existing = namespaces.getCached('', ns);
      const hierarchy = hierarchies.getCached(ns, HIERARCHY_SINGLETON);
      const roll = random();
      let written: { resource: 'namespaces' | 'hierarchyconfigurations'; rv: string | undefined };
      if (existing === undefined) {
        // A namespace, sometimes a subnamespace of another.
        const annotations: Record<string, string> = roll < 0.3 ? { [ANNOTATION_SUBNAMESPACE_OF]: pick([...NAMES, 'elsewhere']) } : {};
        const created = await namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, annotations } } as KubeObject, {});
        written = { resource: 'namespaces', rv: created.metadata.resourceVersion };
      } else if (existing.metadata.deletionTimestamp !== undefined) {
        // Terminating: finalized, and gone.
        const { object } = await namespaces.update('', ns, { ...(existing as KubeObject), apiVersion: 'v1', kind: 'Namespace', spec: { finalizers: [] } } as KubeObject, { subresource: 'finalize' });
        written = { resource: 'namespaces', rv: object.metadata.resourceVersion };
        if (namespaces.getCached('', ns) !== undefined) {
          const deleted = await namespaces.delete('', ns, {});
          written = { resource: 'namespaces', rv: (deleted.result as KubeObject).metadata?.resourceVersion };
        }
      } else if (roll < 0.1) {
        const { result } = await namespaces.delete('', ns, {});
        written = { resource: 'namespaces', rv: (result as KubeObject).metadata?.resourceVersion };
      } else if (hierarchy !== undefined && roll < 0.3) {
        const { result } = await hierarchies.delete(ns, HIERARCHY_SINGLETON, {});
        written = { resource: 'hierarchyconfigurations', rv: (result as KubeObject).metadata?.resourceVersion };
      } else {
        // Set (or change) the parent, now and then allowing cascading deletion; cycles included.
        const spec = { parent: pick([...NAMES, 'elsewhere', '']), allowCascadingDeletion: random() < 0.2 };
        const body = { apiVersion: `${HNC_GROUP}/v1alpha2`, kind: 'HierarchyConfiguration', metadata: { name: HIERARCHY_SINGLETON, namespace: ns }, spec } as KubeObject;
        const object =
          hierarchy === undefined
            ? await hierarchies.create(ns, body, {})
            : await hierarchies.patch(ns, HIERARCHY_SINGLETON, (current) => ({ ...current, spec } as KubeObject), {});
        written = { resource: 'hierarchyconfigurations', rv: object.metadata.resourceVersion };
      }
      // The write's own event applied (a delete's rv may be absent: then the next write's wait covers it).
      if (written.rv !== undefined) await followed.waitForResourceVersion(written.resource, written.rv);
      else await new Promise((r) => setTimeout(r, 20));

      const fresh = new HierarchyIndex(source);
      await fresh.start();
      const expected = snapshot(fresh);
      fresh.stop();
      const got = snapshot(followed);
      assert.deepEqual(got, expected, `step ${step}: the followed index differs from a rebuilt one`);
      // Whatever changed was reported as affected (a namespace whose subtree grew deeper down is not: nothing of its own reads that).
      const gotLocal = snapshot(followed, true);
      if (!affected.all) {
        for (const [name, answer] of gotLocal) {
          if (answer !== previous.get(name)) assert.ok(affected.names.has(name), `step ${step}: ${name} changed (${previous.get(name)} → ${answer}) but was not reported`);
        }
      }
      previous = gotLocal;
      affected.all = false;
      affected.names.clear();
    }
  } finally {
    followed.stop();
    await registry.close();
    await backend.close();
  }
});
