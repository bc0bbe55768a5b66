// One anchor's reconciliation (HNC's anchor reconciler): see reconciler.ts.
import type { KubeObject } from '../machinery/meta.js';
import { deepCopy } from '../machinery/deep-copy.js';
import { isStatusError } from '../machinery/errors.js';
import {
  ANNOTATION_SUBNAMESPACE_OF,
  HIERARCHY_SINGLETON,
  HNC_API_VERSION,
  HNC_GROUP,
  treeDepthLabel,
  type SubnamespaceAnchor,
  type SubnamespaceAnchorState,
} from '../api/hnc/v1alpha2/types.js';
import { FIELD_MANAGER, type ReconcileContext } from './reconciler.js';
import { whyUnmanaged } from './rules.js';

/** HNC's anchor finalizer (its group name, unqualified). */
export const ANCHOR_FINALIZER = HNC_GROUP;

function ignoreCodes(err: unknown, ...codes: number[]): void {
  if (isStatusError(err) && codes.includes(err.code)) return;
  throw err;
}

/** The state HNC gives the anchor from its would-be subnamespace. */
function stateOf(parent: string, subnamespace: Readonly<KubeObject> | undefined): SubnamespaceAnchorState {
  if (subnamespace === undefined) return 'Missing';
  if (subnamespace.metadata.annotations?.[ANNOTATION_SUBNAMESPACE_OF] !== parent) return 'Conflict';
  return 'Ok';
}

async function liveNamespace(ctx: ReconcileContext, name: string): Promise<KubeObject | undefined> {
  try {
    return await ctx.namespaces.get('', name, {});
  } catch (err) {
    ignoreCodes(err, 404);
    return undefined;
  }
}

/** Writes the anchor's state and finalizer when they differ from `anchor`'s; false when the anchor is gone. */
async function writeAnchor(ctx: ReconcileContext, anchor: KubeObject, state: SubnamespaceAnchorState, finalizer: boolean): Promise<boolean> {
  const has = (o: KubeObject): boolean => (o.metadata.finalizers ?? []).includes(ANCHOR_FINALIZER);
  const same = (o: KubeObject): boolean => (o as SubnamespaceAnchor).status?.status === state && has(o) === finalizer;
  if (same(anchor)) return true;
  try {
    await ctx.anchors.patch(
      anchor.metadata.namespace!,
      anchor.metadata.name!,
      (current) => {
        if (same(current)) return current;
        const next = deepCopy(current) as SubnamespaceAnchor;
        next.status = { ...(next.status ?? {}), status: state };
        const rest = (next.metadata.finalizers ?? []).filter((f) => f !== ANCHOR_FINALIZER);
        if (finalizer) next.metadata.finalizers = [...rest, ANCHOR_FINALIZER];
        else if (rest.length > 0) next.metadata.finalizers = rest;
        else delete next.metadata.finalizers;
        return next;
      },
      { fieldManager: FIELD_MANAGER },
    );
    return true;
  } catch (err) {
    ignoreCodes(err, 404);
    return false;
  }
}

/** Creates subnamespace `child` of `parent`: the namespace (annotated, labelled) and its `hierarchy`. */
async function createSubnamespace(ctx: ReconcileContext, parent: string, child: string): Promise<void> {
  const labels: Record<string, string> = { [treeDepthLabel(child)]: '0', [treeDepthLabel(parent)]: '1' };
  ctx.hierarchy.ancestorsOf(parent).forEach((ancestor, i) => {
    labels[treeDepthLabel(ancestor)] = String(i + 2);
  });
  try {
    await ctx.namespaces.create(
      '',
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: child, labels, annotations: { [ANNOTATION_SUBNAMESPACE_OF]: parent } } },
      { fieldManager: FIELD_MANAGER },
    );
  } catch (err) {
    ignoreCodes(err, 409);
  }
  await ensureHierarchy(ctx, child, parent, true);
}

/**
 * `ns` holds its `hierarchy` object, created naming `parent` when missing.
 * With `overwrite` (subnamespaces: their parent is their annotation's) an
 * existing object's parent is set to `parent` too; without it an existing
 * object is left as it is (a client may have just set its parent, which the
 * index has not seen yet).
 */
export async function ensureHierarchy(ctx: ReconcileContext, ns: string, parent: string | undefined, overwrite: boolean): Promise<void> {
  const cached = ctx.hierarchyConfigurations.getCached(ns, HIERARCHY_SINGLETON);
  if (cached !== undefined && (!overwrite || ((cached.spec as { parent?: string } | undefined)?.parent ?? undefined) === parent)) return;
  if (cached === undefined) {
    try {
      await ctx.hierarchyConfigurations.create(
        ns,
        {
          apiVersion: HNC_API_VERSION,
          kind: 'HierarchyConfiguration',
          metadata: { name: HIERARCHY_SINGLETON, namespace: ns },
          spec: parent !== undefined ? { parent } : {},
        },
        { fieldManager: FIELD_MANAGER },
      );
      return;
    } catch (err) {
      // Made meanwhile (another pass, another server): set its parent below. A namespace
      // being deleted takes no new content (403): nothing to do.
      ignoreCodes(err, 409, 403, 404);
      if (!(isStatusError(err) && err.code === 409) || !overwrite) return;
    }
  }
  try {
    await ctx.hierarchyConfigurations.patch(
      ns,
      HIERARCHY_SINGLETON,
      (current) => {
        const spec = { ...((current.spec as Record<string, unknown> | undefined) ?? {}) };
        if ((spec.parent ?? undefined) === parent) return current;
        if (parent === undefined) delete spec.parent;
        else spec.parent = parent;
        return { ...deepCopy(current), spec };
      },
      { fieldManager: FIELD_MANAGER },
    );
  } catch (err) {
    ignoreCodes(err, 404);
  }
}

export async function reconcileAnchor(ctx: ReconcileContext, seen: KubeObject): Promise<void> {
  const parent = seen.metadata.namespace!;
  const child = seen.metadata.name!;
  const anchor = ctx.anchors.getCached(parent, child) ?? seen;
  const finalizing = anchor.metadata.deletionTimestamp !== undefined;
  const hasFinalizer = (anchor.metadata.finalizers ?? []).includes(ANCHOR_FINALIZER);
  if (whyUnmanaged(parent) !== '') {
    if (hasFinalizer) await writeAnchor(ctx, anchor, (anchor as SubnamespaceAnchor).status?.status ?? 'Missing', false);
    return;
  }
  if (whyUnmanaged(child) !== '') {
    await writeAnchor(ctx, anchor, 'Forbidden', false);
    return;
  }
  const subnamespace = ctx.namespaces.getCached('', child) ?? (await liveNamespace(ctx, child));
  const state = stateOf(parent, subnamespace);

  if (finalizing) {
    const h = ctx.hierarchy;
    const subnamespaceDeleting = subnamespace?.metadata.deletionTimestamp !== undefined;
    const blocked = h.childrenOf(child).length > 0 && !h.allowsCascadingDeletion(child);
    if (state === 'Ok' && hasFinalizer && !subnamespaceDeleting && !blocked) {
      // The subnamespace goes through the namespace's own lifecycle; the anchor waits for it.
      try {
        await ctx.namespaces.delete('', child, {});
      } catch (err) {
        ignoreCodes(err, 404, 409);
      }
      return;
    }
    const release = state === 'Missing' || state === 'Conflict' || (state === 'Ok' && !subnamespaceDeleting);
    if (hasFinalizer && release) await writeAnchor(ctx, anchor, state, false);
    return;
  }

  if (state === 'Missing') {
    // The parent being deleted takes no new subnamespace (its anchors go with it).
    const parentNs = ctx.namespaces.getCached('', parent);
    if (parentNs === undefined || parentNs.metadata.deletionTimestamp !== undefined) return;
    // The finalizer first: from then on a deleted anchor waits for its subnamespace.
    if (!(await writeAnchor(ctx, anchor, 'Missing', true))) return;
    await createSubnamespace(ctx, parent, child);
    await writeAnchor(ctx, ctx.anchors.getCached(parent, child) ?? anchor, 'Ok', true);
    return;
  }
  if (state === 'Ok') await ensureHierarchy(ctx, child, parent, true);
  await writeAnchor(ctx, anchor, state, true);
}
