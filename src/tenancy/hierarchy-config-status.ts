// One namespace's HierarchyConfiguration (HNC's hierarchy reconciler): the
// object exists for a namespace in a hierarchy, a subnamespace's parent is its
// annotation's, and status.children and status.conditions follow the tree.
import type { KubeObject } from '../machinery/meta.js';
import { deepCopy } from '../machinery/deep-copy.js';
import { isStatusError } from '../machinery/errors.js';
import { sameJSON } from '../api/core/v1/validation.js';
import {
  ANNOTATION_SUBNAMESPACE_OF,
  CONDITION_ACTIVITIES_HALTED,
  CONDITION_BAD_CONFIGURATION,
  HIERARCHY_SINGLETON,
  REASON_ANCESTOR,
  REASON_ANCHOR_MISSING,
  REASON_ILLEGAL_MANAGED_ANNOTATION,
  REASON_ILLEGAL_MANAGED_LABEL,
  REASON_ILLEGAL_PARENT,
  REASON_IN_CYCLE,
  REASON_PARENT_MISSING,
  type HNCCondition,
  type HierarchyConfiguration,
  type HierarchyConfigurationStatus,
  type MetaKVP,
  type SubnamespaceAnchor,
} from '../api/hnc/v1alpha2/types.js';
import type { HierarchyIndex } from './hierarchy-index.js';
import { FIELD_MANAGER, inHierarchy, type ReconcileContext } from './reconciler.js';
import { ensureHierarchy } from './anchors-reconcile.js';
import { whyUnmanaged } from './rules.js';
import { NO_MANAGED_METADATA } from './managed-metadata.js';

type Wanted = Omit<HNCCondition, 'lastTransitionTime'>;

const condition = (type: string, reason: string, message: string): Wanted => ({ type, status: 'True', reason, message });

/** The members of the cycle `ns` is in, `ns` first and last; undefined when it is in none. */
function cycleOf(h: HierarchyIndex, ns: string): string[] | undefined {
  const path = [ns];
  const seen = new Set([ns]);
  for (let p = h.parentOf(ns); p !== undefined; p = h.parentOf(p)) {
    if (p === ns) return [...path, ns];
    if (seen.has(p)) return undefined;
    seen.add(p);
    path.push(p);
  }
  return undefined;
}

/** The namespace's own critical conditions (HNC's ActivitiesHalted and BadConfiguration reasons). */
function ownConditions(ctx: ReconcileContext, ns: string): Wanted[] {
  const h = ctx.hierarchy;
  const out: Wanted[] = [];
  const parent = h.configuredParentOf(ns) ?? h.parentOf(ns);
  if (parent !== undefined) {
    if (whyUnmanaged(parent) !== '') out.push(condition(CONDITION_ACTIVITIES_HALTED, REASON_ILLEGAL_PARENT, `Parent ${JSON.stringify(parent)} is an unmanaged namespace`));
    else if (!h.exists(parent)) out.push(condition(CONDITION_ACTIVITIES_HALTED, REASON_PARENT_MISSING, `Parent ${JSON.stringify(parent)} does not exist`));
  }
  const cycle = cycleOf(h, ns);
  if (cycle !== undefined) out.push(condition(CONDITION_ACTIVITIES_HALTED, REASON_IN_CYCLE, `Namespace is a member of the cycle: ${cycle.join(' <- ')}`));
  // Keys the flags do not (or no longer) name as managed: reported, not applied (HNC's syncLabels/syncAnnotations).
  const managed = ctx.managed ?? NO_MANAGED_METADATA;
  const spec = h.managedSpecOf(ns);
  for (const kvp of spec?.labels ?? []) {
    if (!managed.isManagedLabel(kvp.key)) out.push(condition(CONDITION_BAD_CONFIGURATION, REASON_ILLEGAL_MANAGED_LABEL, `Not a legal managed label (set via --managed-namespace-label): ${kvp.key}`));
  }
  for (const kvp of spec?.annotations ?? []) {
    if (!managed.isManagedAnnotation(kvp.key)) {
      out.push(condition(CONDITION_BAD_CONFIGURATION, REASON_ILLEGAL_MANAGED_ANNOTATION, `Not a legal managed annotation (set via --managed-namespace-annotation): ${kvp.key}`));
    }
  }
  if (h.isSubnamespace(ns)) {
    const annotated = ctx.namespaces.getCached('', ns)?.metadata.annotations?.[ANNOTATION_SUBNAMESPACE_OF];
    if (annotated !== undefined && !ctx.anchorsSeen.has(`${annotated}/${ns}`)) {
      out.push(condition(CONDITION_BAD_CONFIGURATION, REASON_ANCHOR_MISSING, 'The anchor is missing in the parent namespace'));
    }
  }
  return out;
}

function halted(ctx: ReconcileContext, ns: string): boolean {
  let h = ctx.halted.get(ns);
  if (h === undefined) ctx.halted.set(ns, (h = ownConditions(ctx, ns).some((c) => c.type === CONDITION_ACTIVITIES_HALTED)));
  return h;
}

/** Own conditions, plus AncestorHaltActivities under the nearest halted ancestor. */
function conditionsOf(ctx: ReconcileContext, ns: string): Wanted[] {
  const out = ownConditions(ctx, ns);
  if (cycleOf(ctx.hierarchy, ns) === undefined) {
    const root = [...ctx.hierarchy.ancestorsOf(ns)].reverse().find((a) => halted(ctx, a));
    if (root !== undefined) {
      out.push(condition(CONDITION_ACTIVITIES_HALTED, REASON_ANCESTOR, `Propagation paused in ${JSON.stringify(ns)} and its descendants due to ActivitiesHalted condition on ancestor ${JSON.stringify(root)}`));
    }
  }
  return out;
}

function wantedStatus(ctx: ReconcileContext, ns: string, old: HierarchyConfigurationStatus | undefined): HierarchyConfigurationStatus {
  const status: HierarchyConfigurationStatus = {};
  const children = ctx.hierarchy.childrenOf(ns);
  if (children.length > 0) status.children = [...children];
  const now = ctx.now().toISOString().replace(/\.\d+Z$/, 'Z');
  const conditions = conditionsOf(ctx, ns).map((c): HNCCondition => {
    const before = old?.conditions?.find((o) => o.type === c.type && o.reason === c.reason && o.message === c.message && o.status === c.status);
    return { type: c.type, status: c.status, lastTransitionTime: before?.lastTransitionTime ?? now, reason: c.reason, message: c.message };
  });
  if (conditions.length > 0) status.conditions = conditions;
  return status;
}

/** The labels and annotations of a spec, empty lists for none. */
function anchorMetadata(spec: { labels?: MetaKVP[]; annotations?: MetaKVP[] } | undefined): { labels: MetaKVP[]; annotations: MetaKVP[] } {
  return { labels: spec?.labels ?? [], annotations: spec?.annotations ?? [] };
}

function sameStatus(a: HierarchyConfigurationStatus | undefined, b: HierarchyConfigurationStatus): boolean {
  return sameJSON(a ?? {}, b);
}

export async function reconcileHierarchyConfiguration(ctx: ReconcileContext, ns: string): Promise<void> {
  const h = ctx.hierarchy;
  if (whyUnmanaged(ns) !== '') return;
  let cached = ctx.hierarchyConfigurations.getCached(ns, HIERARCHY_SINGLETON) as HierarchyConfiguration | undefined;
  // Most namespaces have no `hierarchy` and are in no tree: settled before their namespace is decoded.
  if (cached === undefined && !inHierarchy(h, ns)) return;
  const namespace = ctx.namespaces.getCached('', ns);
  if (namespace === undefined || namespace.metadata.deletionTimestamp !== undefined) return;
  if (cached === undefined) {
    await ensureHierarchy(ctx, ns, h.parentOf(ns), false);
    cached = ctx.hierarchyConfigurations.getCached(ns, HIERARCHY_SINGLETON) as HierarchyConfiguration | undefined;
  }
  // A subnamespace's parent is the one its annotation names (HNC overwrites spec.parent).
  const annotated = namespace.metadata.annotations?.[ANNOTATION_SUBNAMESPACE_OF];
  if (annotated !== undefined && annotated !== '' && cached !== undefined && cached.spec?.parent !== annotated) {
    await ensureHierarchy(ctx, ns, annotated, true);
    return; // the index changes, and the next pass sets the status
  }
  // A subnamespace's labels and annotations are its anchor's (HNC copies the anchor's spec into `hierarchy`).
  const anchor = annotated !== undefined && annotated !== '' ? (ctx.anchorsSeen.get(`${annotated}/${ns}`) as SubnamespaceAnchor | undefined) : undefined;
  if (anchor !== undefined && cached !== undefined && !sameJSON(anchorMetadata(anchor.spec), anchorMetadata(cached.spec))) {
    try {
      await ctx.hierarchyConfigurations.patch(
        ns,
        HIERARCHY_SINGLETON,
        (current) => {
          const next = deepCopy(current) as HierarchyConfiguration;
          const wanted = anchorMetadata(anchor.spec);
          next.spec = { ...(next.spec ?? {}) };
          if (wanted.labels.length > 0) next.spec.labels = wanted.labels;
          else delete next.spec.labels;
          if (wanted.annotations.length > 0) next.spec.annotations = wanted.annotations;
          else delete next.spec.annotations;
          return next;
        },
        { fieldManager: FIELD_MANAGER },
      );
    } catch (err) {
      if (isStatusError(err) && (err.code === 404 || err.code === 403)) return;
      throw err;
    }
    return; // the index changes, and the next pass sets the status
  }
  if (cached === undefined || sameStatus(cached.status, wantedStatus(ctx, ns, cached.status))) return;
  try {
    await ctx.hierarchyConfigurations.patch(
      ns,
      HIERARCHY_SINGLETON,
      (current) => {
        const old = (current as HierarchyConfiguration).status;
        const status = wantedStatus(ctx, ns, old);
        if (sameStatus(old, status)) return current;
        const next = deepCopy(current) as KubeObject;
        if (Object.keys(status).length === 0) delete next.status;
        else next.status = status;
        return next;
      },
      { fieldManager: FIELD_MANAGER },
    );
  } catch (err) {
    if (isStatusError(err) && (err.code === 404 || err.code === 403)) return;
    throw err;
  }
}
