// Admission of HierarchyConfigurations (HNC's hierarchy validator, enforced in
// the server): re-parenting a namespace through `spec.parent`.
//
// - Unmanaged namespaces can be neither child nor parent (403); a namespace
//   another tool manages (`hnc.x-k8s.io/managed-by`) has no parent here (403).
// - A subnamespace keeps the parent its anchor gave it (409 "illegal parent").
// - The new parent must exist (403 "requested parent … does not exist") and
//   must not be the namespace or one of its descendants (409, HNC's cycle
//   message naming the ancestry).
// - HNC's rights rule: besides updating `hierarchyconfigurations` in the
//   namespace itself (the request's own authorization), the user must be
//   allowed to update `hierarchyconfigurations` in the most recent common
//   ancestor of the old and new parents; when the move crosses trees, in the
//   old tree's root and in the new parent; when the namespace becomes a root,
//   in the old tree's root. A refusal is HNC's answer: 401 Unauthorized with
//   its message (HNC's webhook denies with NewUnauthorized; behind a webhook
//   kube-apiserver would also prefix "admission webhook … denied the
//   request: ", which an in-process rule has no reason to).
// - A move that would make an ancestor's object overwrite a local object of
//   the same name in the moved subtree is refused, 409 with HNC's list.
// - status (children, conditions) is the server's: a client's write keeps the
//   stored one. Deleting `hierarchy` of a namespace with a parent makes it a
//   root: the same rights are asked.
// The server's own writes (no HTTP request) pass.
import type { AdmissionAttributes } from '../registry/admission.js';
import { StatusError, conflict, forbidden, invalid } from '../machinery/errors.js';
import { NO_MANAGED_METADATA } from './managed-metadata.js';
import { deepCopy } from '../machinery/deep-copy.js';
import { ANNOTATION_MANAGED_BY, HIERARCHY_SINGLETON, HNC_GROUP, type HierarchyConfiguration } from '../api/hnc/v1alpha2/types.js';
import { HIERARCHY_GR, isServerWrite, userOf, whyUnmanaged, type TenancyView } from './rules.js';

const q = (s: string): string => JSON.stringify(s);

export async function admitHierarchyConfiguration(a: AdmissionAttributes, view: TenancyView): Promise<void> {
  if (isServerWrite(a) || a.subresource !== '' || a.name !== HIERARCHY_SINGLETON) return;
  const ns = a.namespace;
  const h = view.hierarchy;
  let wanted: string | undefined;
  if (a.operation === 'DELETE') {
    if (h.isSubnamespace(ns)) return;
    wanted = undefined;
  } else if (a.operation === 'CREATE' || a.operation === 'UPDATE') {
    const obj = a.object as HierarchyConfiguration;
    const old = a.oldObject as HierarchyConfiguration | undefined;
    if (old?.status === undefined) delete obj.status;
    else obj.status = deepCopy(old.status);
    const whyChild = whyUnmanaged(ns);
    if (whyChild !== '') {
      throw forbidden(HIERARCHY_GR, HIERARCHY_SINGLETON, `namespace ${q(ns)} is not managed by HNC (${whyChild}) and cannot be set as a child of another namespace`);
    }
    const parent = obj.spec?.parent ?? '';
    const whyParent = whyUnmanaged(parent);
    if (whyParent !== '') {
      throw forbidden(HIERARCHY_GR, HIERARCHY_SINGLETON, `namespace ${q(parent)} is not managed by HNC (${whyParent}) and cannot be set as the parent of another namespace`);
    }
    // HNC's ValidateManagedLabels/Annotations: only managed keys (--managed-namespace-label/-annotation) may be set.
    const errs = (view.managed ?? NO_MANAGED_METADATA).validate(obj.spec);
    if (errs.length > 0) throw invalid(HNC_GROUP, 'HierarchyConfiguration', HIERARCHY_SINGLETON, errs);
    wanted = parent === '' ? undefined : parent;
  } else return;

  // A namespace another tool manages (hnc.x-k8s.io/managed-by) has no parent in this hierarchy.
  const manager = (await view.namespace(ns))?.metadata.annotations?.[ANNOTATION_MANAGED_BY];
  if (manager !== undefined && manager !== '' && manager !== HNC_GROUP && wanted !== undefined) {
    throw forbidden(HIERARCHY_GR, HIERARCHY_SINGLETON, `namespace ${q(ns)} is managed by ${q(manager)}, not HNC, so it cannot have a parent in HNC`);
  }
  const current = h.parentOf(ns);
  if (current === wanted) return;
  if (h.isSubnamespace(ns)) {
    throw conflict(
      HIERARCHY_GR,
      HIERARCHY_SINGLETON,
      `illegal parent: Cannot set the parent of ${q(ns)} to ${q(wanted ?? '')} because it's a subnamespace of ${q(current ?? '')}`,
    );
  }
  if (wanted !== undefined && (await view.namespace(wanted)) === undefined) {
    throw forbidden(HIERARCHY_GR, HIERARCHY_SINGLETON, `requested parent ${q(wanted)} does not exist`);
  }
  const cycle = cycleReason(view, ns, wanted);
  if (cycle !== '') throw conflict(HIERARCHY_GR, HIERARCHY_SINGLETON, `illegal parent: ${cycle}`);
  // Prevent overwriting local objects in the moved subtree (HNC's getConflictingObjects).
  const overwritten = wanted === undefined ? [] : (view.reparentConflicts?.(ns, wanted) ?? []);
  if (overwritten.length > 0) {
    throw conflict(
      HIERARCHY_GR,
      HIERARCHY_SINGLETON,
      `Cannot update hierarchy because it would overwrite the following object(s):\n  * ${overwritten.join('\n  * ')}\nTo fix this, please rename or remove the conflicting objects first.`,
    );
  }
  await checkRights(a, view, current, wanted);
}

/** HNC's CanSetParent: '' when `parent` may become the parent of `ns`. */
export function cycleReason(view: TenancyView, ns: string, parent: string | undefined): string {
  if (parent === undefined) return '';
  if (parent === ns) return `${q(parent)} cannot be set as its own parent`;
  // The proposed parent's ancestry, from the parent up, as far as `ns`.
  const chain = [parent, ...view.hierarchy.ancestorsOf(parent)];
  const at = chain.indexOf(ns);
  if (at < 0) return '';
  return `cycle when making ${q(parent)} the parent of ${q(ns)}: current ancestry is ${chain.slice(0, at + 1).join(' -> ')}`;
}

/** Root first, `ns` last (HNC's AncestryNames). */
function ancestry(view: TenancyView, ns: string): string[] {
  return [...view.hierarchy.ancestorsOf(ns)].reverse().concat(ns);
}

async function checkRights(a: AdmissionAttributes, view: TenancyView, current: string | undefined, wanted: string | undefined): Promise<void> {
  const authorize = view.authorize();
  const user = userOf(a);
  if (authorize === undefined || user === undefined) return;
  const checks: { namespace: string; reason: string }[] = [];
  if (current === undefined || whyUnmanaged(current) !== '') {
    if (wanted !== undefined) checks.push({ namespace: wanted, reason: 'proposed parent' });
  } else if ((await view.namespace(current)) === undefined) {
    // The current parent is gone: nobody's subtree is taken from.
    if (wanted !== undefined) checks.push({ namespace: wanted, reason: 'proposed parent' });
  } else {
    const currentChain = ancestry(view, current);
    if (wanted === undefined) checks.push({ namespace: currentChain[0]!, reason: 'current root ancestor' });
    else {
      const wantedChain = ancestry(view, wanted);
      if (currentChain[0] !== wantedChain[0]) {
        checks.push({ namespace: currentChain[0]!, reason: 'current root ancestor' }, { namespace: wanted, reason: 'proposed parent' });
      } else {
        let common = currentChain[0]!;
        for (let i = 1; i < currentChain.length && i < wantedChain.length && currentChain[i] === wantedChain[i]; i++) common = currentChain[i]!;
        checks.push({ namespace: common, reason: `most recent common ancestor of current parent ${q(current)} and proposed parent ${q(wanted)}` });
      }
    }
  }
  for (const check of checks) {
    const decision = authorize({
      user,
      verb: 'update',
      isResourceRequest: true,
      path: '',
      namespace: check.namespace,
      apiGroup: HNC_GROUP,
      apiVersion: '*',
      resource: 'hierarchyconfigurations',
      subresource: '',
      name: '',
    });
    if (!decision.allowed) {
      throw new StatusError(401, 'Unauthorized', `User ${user.name} is not authorized to modify the subtree of ${check.namespace}, which is the ${check.reason}`);
    }
  }
}
