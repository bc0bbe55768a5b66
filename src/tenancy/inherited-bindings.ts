// RBAC inheritance (HNC's model, resolved at authorization time): the
// RoleBindings of a namespace's ancestors apply in it, as if they were its own.
// The RBAC authorizer (auth/authz/rbac.ts) does not know the hierarchy; the
// server hands it this scope. The copies the propagation controller writes into
// descendants (labelled hnc.x-k8s.io/inherited-from) are there to be seen
// (`kubectl get rolebindings -n child`), not to grant: their source applies
// already, so counting them too would let a deleted source keep granting until
// its copies are gone.

import type { KubeObject } from '../machinery/meta.js';
import { LABEL_INHERITED_FROM } from '../api/hnc/v1alpha2/types.js';
import type { Hierarchy } from './hierarchy.js';

/** True when the object is a propagated copy (it carries the inherited-from label). */
export function isPropagatedCopy(object: Readonly<Pick<KubeObject, 'metadata'>>): boolean {
  return object.metadata.labels?.[LABEL_INHERITED_FROM] !== undefined;
}

/** The binding scope for RBAC (the shape of auth/authz/rbac.ts's BindingScope): a namespace, then its ancestors. */
export function inheritedBindingScope(hierarchy: Hierarchy): {
  bindingNamespaces(namespace: string): readonly string[];
  isPropagatedCopy(binding: Readonly<Pick<KubeObject, 'metadata'>>): boolean;
} {
  return {
    bindingNamespaces: (namespace) => {
      const ancestors = hierarchy.ancestorsOf(namespace);
      return ancestors.length === 0 ? [namespace] : [namespace, ...ancestors];
    },
    isPropagatedCopy,
  };
}
