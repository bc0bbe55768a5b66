// The contract of the hierarchy index: what the rest of the server may ask of
// the namespace tree (HNC's model: each namespace has at most one parent, named
// by the `spec.parent` of its HierarchyConfiguration `hierarchy`). The index is
// kept in memory from the stores (list, then watch) and is the one answer every
// consumer shares: authorization (whose RoleBindings apply in a namespace),
// admission (hierarchical quota, anchors, protected copies), the propagation
// controller and the namespace-list filter.
//
// Names only: no object is returned, so a caller cannot mutate the index.

export interface Hierarchy {
  /** The parent of `namespace`, or undefined for a root (or an unknown namespace). */
  parentOf(namespace: string): string | undefined;
  /** Ancestors nearest first (parent, grandparent, …), `namespace` itself excluded. */
  ancestorsOf(namespace: string): readonly string[];
  /** Direct children, sorted by name. */
  childrenOf(namespace: string): readonly string[];
  /** Every descendant (children, their children, …), `namespace` excluded; sorted by name. */
  descendantsOf(namespace: string): readonly string[];
  /** True when `namespace` was created through a SubnamespaceAnchor in its parent. */
  isSubnamespace(namespace: string): boolean;
  /** Called after every change of the tree (after the index has applied it). */
  onChange(listener: () => void): () => void;
}

/** A hierarchy in which every namespace is a root: what a server without tenancy answers. */
export const FLAT_HIERARCHY: Hierarchy = {
  parentOf: () => undefined,
  ancestorsOf: () => [],
  childrenOf: () => [],
  descendantsOf: () => [],
  isSubnamespace: () => false,
  onChange: () => () => {},
};
