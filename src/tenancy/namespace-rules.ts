// Admission of Namespaces for the hierarchy (HNC's namespace validator,
// enforced in the server):
// - tree labels (`<ancestor>.tree.hnc.x-k8s.io/depth`) and the
//   `hnc.x-k8s.io/subnamespace-of` annotation are the server's: a client may
//   neither set, change nor remove them (403, HNC's words for the labels);
// - a namespace with a parent cannot be given to another manager
//   (`hnc.x-k8s.io/managed-by`, 403, HNC's words);
// - a subnamespace whose anchor exists is deleted through its anchor (403);
// - a namespace with subnamespaces is refused deletion unless it or an
//   ancestor sets allowCascadingDeletion (403, HNC's words); with it, the
//   subnamespaces go too (their anchors are content of the namespace).
// The server's own writes (no HTTP request) pass.
import type { AdmissionAttributes } from '../registry/admission.js';
import { forbidden } from '../machinery/errors.js';
import { ANNOTATION_MANAGED_BY, ANNOTATION_SUBNAMESPACE_OF, HNC_GROUP, LABEL_TREE_DEPTH_SUFFIX } from '../api/hnc/v1alpha2/types.js';
import { NAMESPACES_GR, isServerWrite, type TenancyView } from './rules.js';

export function admitNamespace(a: AdmissionAttributes, view: TenancyView): void {
  // /status writes keep their metadata changes (upstream's status strategy), so they are checked too.
  if (isServerWrite(a) || (a.subresource !== '' && a.subresource !== 'status')) return;
  const name = a.name;
  if (a.operation === 'CREATE' || a.operation === 'UPDATE') {
    const labels = a.object?.metadata.labels ?? {};
    const oldLabels = a.oldObject?.metadata.labels ?? {};
    for (const [key, value] of Object.entries(labels)) {
      if (key.includes(LABEL_TREE_DEPTH_SUFFIX) && oldLabels[key] !== value) {
        throw forbidden(NAMESPACES_GR, name, `cannot set or modify tree label ${JSON.stringify(key)} in namespace ${JSON.stringify(name)}; these can only be managed by HNC`);
      }
    }
    for (const key of Object.keys(oldLabels)) {
      if (key.includes(LABEL_TREE_DEPTH_SUFFIX) && !(key in labels)) {
        throw forbidden(NAMESPACES_GR, name, `cannot remove tree label ${JSON.stringify(key)} in namespace ${JSON.stringify(name)}; these can only be managed by HNC`);
      }
    }
    const manager = a.object?.metadata.annotations?.[ANNOTATION_MANAGED_BY];
    const parent = view.hierarchy.parentOf(name);
    if (a.operation === 'UPDATE' && manager !== undefined && manager !== '' && manager !== HNC_GROUP && parent !== undefined) {
      throw forbidden(
        NAMESPACES_GR,
        name,
        `is a child of ${JSON.stringify(parent)}. Namespaces with parents defined by HNC cannot also be managed externally. To manage this namespace with ${JSON.stringify(manager)}, first make it a root in HNC`,
      );
    }
    const annotated = a.object?.metadata.annotations?.[ANNOTATION_SUBNAMESPACE_OF];
    if (annotated !== a.oldObject?.metadata.annotations?.[ANNOTATION_SUBNAMESPACE_OF]) {
      throw forbidden(
        NAMESPACES_GR,
        name,
        `cannot set, modify or remove the annotation ${JSON.stringify(ANNOTATION_SUBNAMESPACE_OF)}; subnamespaces are created and deleted through their SubnamespaceAnchor`,
      );
    }
    return;
  }
  if (a.operation !== 'DELETE') return;
  const parent = a.oldObject?.metadata.annotations?.[ANNOTATION_SUBNAMESPACE_OF];
  if (parent !== undefined && parent !== '' && view.anchor(parent, name) !== undefined) {
    throw forbidden(NAMESPACES_GR, name, `is a subnamespace. Please delete the anchor from the parent namespace ${parent} to delete the subnamespace`);
  }
  const h = view.hierarchy;
  if (h.allowsCascadingDeletion(name)) return;
  if (h.childrenOf(name).some((child) => h.isSubnamespace(child))) {
    throw forbidden(
      NAMESPACES_GR,
      name,
      "contains subnamespaces. Please remove all subnamespaces before deleting this namespace, or set 'allowCascadingDeletion' to delete them automatically",
    );
  }
}
