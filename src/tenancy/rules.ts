// What the tenancy admission rules share: where they read the tree and the
// stores, which namespaces the hierarchy leaves alone, and the group/resources
// their errors name.
import type { KubeObject } from '../machinery/meta.js';
import type { UserInfo } from '../machinery/user.js';
import type { AuthorizeFunction } from '../machinery/cel/library-authz.js';
import type { AdmissionAttributes } from '../registry/admission.js';
import { HNC_GROUP } from '../api/hnc/v1alpha2/types.js';
import type { HierarchyIndex } from './hierarchy-index.js';
import type { ManagedMetadata } from './managed-metadata.js';

export const ANCHORS_GR = { group: HNC_GROUP, resource: 'subnamespaceanchors' };
export const HIERARCHY_GR = { group: HNC_GROUP, resource: 'hierarchyconfigurations' };
export const NAMESPACES_GR = { group: '', resource: 'namespaces' };

/**
 * Namespaces outside the hierarchy (HNC's --excluded-namespace defaults): they
 * can be neither a parent nor a child, and no anchor may live in or name them.
 */
export const UNMANAGED_NAMESPACES: ReadonlySet<string> = new Set(['kube-system', 'kube-public', 'kube-node-lease']);

/** HNC's WhyUnmanaged: '' for a managed namespace, else the reason. */
export function whyUnmanaged(namespace: string): string {
  return UNMANAGED_NAMESPACES.has(namespace) ? 'excluded by the HNC administrator' : '';
}

/** What the rules read. */
export interface TenancyView {
  hierarchy: HierarchyIndex;
  /** The server's authorizer (absent: every request is allowed, as a server without authorization). */
  authorize(): AuthorizeFunction | undefined;
  /** A namespace as the watch cache holds it, else as storage has it; undefined when it does not exist. */
  namespace(name: string): Promise<Readonly<KubeObject> | undefined>;
  /** An anchor, from the watch cache. */
  anchor(namespace: string, name: string): Readonly<KubeObject> | undefined;
  /**
   * The local objects of `namespace`'s subtree that the objects of `newParent`
   * and its ancestors would overwrite, were `namespace` moved under
   * `newParent` (HNC's words: `Namespace "ns": name (group/version, Kind=Kind)`).
   */
  reparentConflicts?(namespace: string, newParent: string): string[];
  /** The managed labels and annotations (absent: none). */
  managed?: ManagedMetadata;
}

/** A write the server makes itself (the tenancy reconciler, the namespace lifecycle): no HTTP request behind it. */
export function isServerWrite(a: AdmissionAttributes): boolean {
  return a.request === undefined;
}

export function userOf(a: AdmissionAttributes): UserInfo | undefined {
  const u = a.userInfo;
  if (u === undefined) return undefined;
  const user: UserInfo = { name: u.username, groups: [...(u.groups ?? [])] };
  if (u.uid !== undefined) user.uid = u.uid;
  if (u.extra !== undefined) user.extra = u.extra;
  return user;
}
