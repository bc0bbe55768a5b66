// Admission of SubnamespaceAnchors (HNC's anchor validator, enforced in the
// server): who may create an anchor in P is whoever RBAC lets create
// `subnamespaceanchors` in P (the request's own authorization); this adds the
// tree's rules. The namespace itself is made by the reconciler (reconciler.ts)
// once the anchor is stored.
//
// - CREATE: neither P nor the anchor's name may be an unmanaged namespace
//   (403); a namespace of that name that exists and is not already P's
//   subnamespace is never taken over (409 "cannot create a subnamespace using
//   an existing namespace"). The state starts at Missing whatever the body says.
// - UPDATE: status is the server's: a client's write keeps the stored one.
// - DELETE: an anchor whose subnamespace has children is refused unless that
//   subnamespace (or an ancestor) allows cascading deletion (403, HNC's words).
// The server's own writes (no HTTP request) pass.
import type { AdmissionAttributes } from '../registry/admission.js';
import { conflict, forbidden, invalid } from '../machinery/errors.js';
import { deepCopy } from '../machinery/deep-copy.js';
import { ANNOTATION_SUBNAMESPACE_OF, HNC_GROUP, type SubnamespaceAnchor } from '../api/hnc/v1alpha2/types.js';
import { NO_MANAGED_METADATA } from './managed-metadata.js';
import { ANCHORS_GR, isServerWrite, whyUnmanaged, type TenancyView } from './rules.js';

export async function admitAnchor(a: AdmissionAttributes, view: TenancyView): Promise<void> {
  if (isServerWrite(a) || a.subresource !== '') return;
  const parent = a.namespace;
  const child = a.name;
  // HNC's ValidateManagedLabels/Annotations: only managed keys (--managed-namespace-label/-annotation) may be set.
  if (a.operation === 'CREATE' || a.operation === 'UPDATE') {
    const errs = (view.managed ?? NO_MANAGED_METADATA).validate((a.object as SubnamespaceAnchor).spec);
    if (errs.length > 0) throw invalid(HNC_GROUP, 'SubnamespaceAnchor', child, errs);
  }
  switch (a.operation) {
    case 'CREATE': {
      const why = whyUnmanaged(parent);
      if (why !== '') throw forbidden(ANCHORS_GR, parent, `cannot create a subnamespace in the unmanaged namespace ${JSON.stringify(parent)} (${why})`);
      const whyChild = whyUnmanaged(child);
      if (whyChild !== '') throw forbidden(ANCHORS_GR, child, `cannot create a subnamespace using the unmanaged namespace name ${JSON.stringify(child)} (${whyChild})`);
      const existing = await view.namespace(child);
      if (existing !== undefined && existing.metadata.annotations?.[ANNOTATION_SUBNAMESPACE_OF] !== parent) {
        throw conflict(ANCHORS_GR, child, 'cannot create a subnamespace using an existing namespace');
      }
      (a.object as SubnamespaceAnchor).status = { status: 'Missing' };
      return;
    }
    case 'UPDATE': {
      const obj = a.object as SubnamespaceAnchor;
      const old = a.oldObject as SubnamespaceAnchor;
      if (old.status === undefined) delete obj.status;
      else obj.status = deepCopy(old.status);
      return;
    }
    case 'DELETE': {
      const old = a.oldObject as SubnamespaceAnchor | undefined;
      const h = view.hierarchy;
      if (old?.status?.status === 'Ok' && h.parentOf(child) === parent && h.childrenOf(child).length > 0 && !h.allowsCascadingDeletion(child)) {
        throw forbidden(
          ANCHORS_GR,
          child,
          `subnamespace ${child} is not a leaf and doesn't allow cascading deletion. Please set allowCascadingDeletion flag or make it a leaf first`,
        );
      }
      return;
    }
    default:
  }
}
