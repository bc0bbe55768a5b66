// Tree labels (HNC's `<ancestor>.tree.hnc.x-k8s.io/depth`): what a namespace
// should carry, and the one write that brings its labels there (with the
// managed labels and annotations of managed-metadata.ts, in the same write).
//
// Only namespaces in a hierarchy (a parent, children, or an anchor) carry tree
// labels. HNC labels every namespace it manages with its own depth-0 label, but
// that would change `kubectl get ns -o yaml` (and every label-selector count)
// for clients that never use the hierarchy, which must see exactly
// kube-apiserver's namespaces; a namespace gets its labels the moment it joins
// a tree, and treeSelect/select exceptions only ever look at namespaces in one.
import { deepCopy } from '../machinery/deep-copy.js';
import type { KubeObject } from '../machinery/meta.js';
import { isStatusError } from '../machinery/errors.js';
import { HIERARCHY_SINGLETON, LABEL_TREE_DEPTH_SUFFIX, treeDepthLabel } from '../api/hnc/v1alpha2/types.js';
import type { HierarchyIndex } from './hierarchy-index.js';
import { FIELD_MANAGER, inHierarchy, type ReconcileContext } from './reconciler.js';
import { whyUnmanaged } from './rules.js';
import { withManagedKeys } from './managed-metadata.js';

/** The tree labels of `ns`: itself at 0, each ancestor at its distance; none outside a hierarchy. */
export function treeLabelsOf(h: HierarchyIndex, ns: string): Record<string, string> {
  if (whyUnmanaged(ns) !== '' || !inHierarchy(h, ns)) return {};
  const labels: Record<string, string> = { [treeDepthLabel(ns)]: '0' };
  h.ancestorsOf(ns).forEach((ancestor, i) => {
    labels[treeDepthLabel(ancestor)] = String(i + 1);
  });
  return labels;
}

/** `labels` with its tree labels replaced by `tree`; undefined when nothing changes. */
export function withTreeLabels(labels: Readonly<Record<string, string>> | undefined, tree: Record<string, string>): Record<string, string> | undefined {
  const next: Record<string, string> = {};
  let changed = false;
  for (const [key, value] of Object.entries(labels ?? {})) {
    if (key.endsWith(LABEL_TREE_DEPTH_SUFFIX) && tree[key] !== value) {
      changed = true;
      continue;
    }
    next[key] = value;
  }
  for (const [key, value] of Object.entries(tree)) {
    if (next[key] !== value) {
      next[key] = value;
      changed = true;
    }
  }
  return changed ? next : undefined;
}

/**
 * The managed labels and annotations of `ns`: those its own `hierarchy` and
 * its ancestors' set (legal keys only; the root's value wins a key set twice,
 * as HNC's walk up the tree writes it last).
 */
function managedOf(ctx: ReconcileContext, ns: string): { labels: Record<string, string>; annotations: Record<string, string> } {
  const labels: Record<string, string> = {};
  const annotations: Record<string, string> = {};
  const managed = ctx.managed!;
  for (const level of [ns, ...ctx.hierarchy.ancestorsOf(ns)]) {
    const spec = ctx.hierarchy.managedSpecOf(level);
    for (const kvp of spec?.labels ?? []) if (managed.isManagedLabel(kvp.key)) labels[kvp.key] = kvp.value;
    for (const kvp of spec?.annotations ?? []) if (managed.isManagedAnnotation(kvp.key)) annotations[kvp.key] = kvp.value;
  }
  return { labels, annotations };
}

/** `current` with its tree labels and managed metadata as they should be; undefined when nothing changes. */
function withWantedMetadata(ctx: ReconcileContext, ns: string, current: Readonly<KubeObject>): KubeObject | undefined {
  let labels = withTreeLabels(current.metadata.labels, treeLabelsOf(ctx.hierarchy, ns));
  let annotations: Record<string, string> | undefined;
  // Managed metadata goes on namespaces in a hierarchy or holding a `hierarchy` (one that left a tree loses it there);
  // a flat namespace is never written.
  const managedHere =
    ctx.managed?.any === true && whyUnmanaged(ns) === '' && (inHierarchy(ctx.hierarchy, ns) || ctx.hierarchyConfigurations.getCached(ns, HIERARCHY_SINGLETON) !== undefined);
  if (managedHere) {
    const managed = managedOf(ctx, ns);
    labels = withManagedKeys(labels ?? current.metadata.labels, managed.labels, (k) => ctx.managed!.isManagedLabel(k)) ?? labels;
    annotations = withManagedKeys(current.metadata.annotations, managed.annotations, (k) => ctx.managed!.isManagedAnnotation(k));
  }
  if (labels === undefined && annotations === undefined) return undefined;
  const copy = deepCopy(current) as KubeObject;
  if (labels !== undefined) copy.metadata.labels = labels;
  if (annotations !== undefined) copy.metadata.annotations = annotations;
  return copy;
}

export async function reconcileTreeLabels(ctx: ReconcileContext, ns: string): Promise<void> {
  // Outside any tree and without tree labels: nothing to write, and the namespace is not decoded (a pass over 10,000 of them at start).
  if (!ctx.hierarchy.hasTreeLabels(ns) && !inHierarchy(ctx.hierarchy, ns)) return;
  const cached = ctx.namespaces.getCached('', ns);
  if (cached === undefined || cached.metadata.deletionTimestamp !== undefined) return;
  const wanted = withWantedMetadata(ctx, ns, cached);
  if (wanted === undefined) return;
  // First from the cached object (one write, guarded by its resourceVersion); on a conflict, by patch.
  try {
    const copy = wanted;
    await ctx.namespaces.update('', ns, { ...copy, apiVersion: 'v1', kind: 'Namespace' }, { fieldManager: FIELD_MANAGER });
    return;
  } catch (err) {
    if (isStatusError(err) && err.code === 404) return;
    if (!(isStatusError(err) && err.code === 409)) throw err;
  }
  try {
    await ctx.namespaces.patch(
      '',
      ns,
      (current) => withWantedMetadata(ctx, ns, current) ?? current,
      { fieldManager: FIELD_MANAGER },
    );
  } catch (err) {
    // Gone meanwhile: nothing to label.
    if (isStatusError(err) && err.code === 404) return;
    throw err;
  }
}
