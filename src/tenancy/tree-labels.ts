// Tree labels (HNC's `<ancestor>.tree.hnc.x-k8s.io/depth`): what a namespace
// should carry, and the one write that brings its labels there.
import { deepCopy } from '../machinery/deep-copy.js';
import type { KubeObject } from '../machinery/meta.js';
import { isStatusError } from '../machinery/errors.js';
import { LABEL_TREE_DEPTH_SUFFIX, treeDepthLabel } from '../api/hnc/v1alpha2/types.js';
import type { HierarchyIndex } from './hierarchy-index.js';
import { FIELD_MANAGER, inHierarchy, type ReconcileContext } from './reconciler.js';
import { whyUnmanaged } from './rules.js';

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

export async function reconcileTreeLabels(ctx: ReconcileContext, ns: string): Promise<void> {
  // Outside any tree and without tree labels: nothing to write, and the namespace is not decoded (a pass over 10,000 of them at start).
  if (!ctx.hierarchy.hasTreeLabels(ns) && !inHierarchy(ctx.hierarchy, ns)) return;
  const cached = ctx.namespaces.getCached('', ns);
  if (cached === undefined || cached.metadata.deletionTimestamp !== undefined) return;
  const wanted = withTreeLabels(cached.metadata.labels, treeLabelsOf(ctx.hierarchy, ns));
  if (wanted === undefined) return;
  // First from the cached object (one write, guarded by its resourceVersion); on a conflict, by patch.
  try {
    const copy = deepCopy(cached) as KubeObject;
    copy.metadata.labels = wanted;
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
      (current) => {
        const next = withTreeLabels(current.metadata.labels, treeLabelsOf(ctx.hierarchy, ns));
        if (next === undefined) return current;
        const copy = deepCopy(current);
        copy.metadata.labels = next;
        return copy;
      },
      { fieldManager: FIELD_MANAGER },
    );
  } catch (err) {
    // Gone meanwhile: nothing to label.
    if (isStatusError(err) && err.code === 404) return;
    throw err;
  }
}
