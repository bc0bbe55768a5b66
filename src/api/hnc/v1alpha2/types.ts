// hnc.x-k8s.io/v1alpha2: the Hierarchical Namespace Controller's API (HNC's
// field names, labels, annotations, condition types and reasons), served by
// apiary as built-in resources. The wire format is HNC's; the words are ours.
import type { KubeObject } from '../../../machinery/meta.js';

export const HNC_GROUP = 'hnc.x-k8s.io';
export const HNC_VERSION = 'v1alpha2';
export const HNC_API_VERSION = `${HNC_GROUP}/${HNC_VERSION}`;

/** The one HierarchyConfiguration a namespace may hold. */
export const HIERARCHY_SINGLETON = 'hierarchy';
/** The one HNCConfiguration of the cluster. */
export const HNC_CONFIG_SINGLETON = 'config';

// Labels and annotations HNC writes.
export const LABEL_INHERITED_FROM = `${HNC_GROUP}/inherited-from`;
export const LABEL_TREE_DEPTH_SUFFIX = `.tree.${HNC_GROUP}/depth`;
export const ANNOTATION_SUBNAMESPACE_OF = `${HNC_GROUP}/subnamespace-of`;
export const ANNOTATION_MANAGED_BY = `${HNC_GROUP}/managed-by`;
export const ANNOTATION_PROPAGATE_PREFIX = `propagate.${HNC_GROUP}`;
export const ANNOTATION_SELECT = `${ANNOTATION_PROPAGATE_PREFIX}/select`;
export const ANNOTATION_TREE_SELECT = `${ANNOTATION_PROPAGATE_PREFIX}/treeSelect`;
export const ANNOTATION_NONE = `${ANNOTATION_PROPAGATE_PREFIX}/none`;
export const ANNOTATION_ALL = `${ANNOTATION_PROPAGATE_PREFIX}/all`;
export const LABEL_INCLUDED_NAMESPACE = `${HNC_GROUP}/included-namespace`;
export const FINALIZER_HAS_SUBNAMESPACE = `${HNC_GROUP}/hasSubnamespace`;
/** HierarchicalResourceQuota's cleanup label on the ResourceQuotas it derives. */
export const LABEL_HRQ = `${HNC_GROUP}/hrq`;

/** The tree label of `ancestor` on a namespace: `<ancestor>.tree.hnc.x-k8s.io/depth`. */
export function treeDepthLabel(ancestor: string): string {
  return `${ancestor}${LABEL_TREE_DEPTH_SUFFIX}`;
}

// Condition types and reasons (HierarchyConfiguration and HNCConfiguration).
export const CONDITION_ACTIVITIES_HALTED = 'ActivitiesHalted';
export const CONDITION_BAD_CONFIGURATION = 'BadConfiguration';
export const CONDITION_OUT_OF_SYNC = 'OutOfSync';
export const CONDITION_NAMESPACE = 'NamespaceCondition';
export const REASON_ANCESTOR = 'AncestorHaltActivities';
export const REASON_ANCHOR_MISSING = 'SubnamespaceAnchorMissing';
export const REASON_DELETING_CRD = 'DeletingCRD';
export const REASON_ILLEGAL_MANAGED_ANNOTATION = 'IllegalManagedAnnotation';
export const REASON_ILLEGAL_MANAGED_LABEL = 'IllegalManagedLabel';
export const REASON_ILLEGAL_PARENT = 'IllegalParent';
export const REASON_IN_CYCLE = 'InCycle';
export const REASON_PARENT_MISSING = 'ParentMissing';
export const REASON_MULTIPLE_CONFIGS_FOR_TYPE = 'MultipleConfigurationsForType';
export const REASON_RESOURCE_NOT_FOUND = 'ResourceNotFound';
export const REASON_RESOURCE_NOT_NAMESPACED = 'ResourceNotNamespaced';
export const REASON_UNKNOWN = 'Unknown';

/** A metav1.Condition as HNC's status fields carry them. */
export interface HNCCondition {
  type: string;
  status: string;
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** A label or annotation applied to a namespace and its descendants. */
export interface MetaKVP {
  key: string;
  value: string;
}

// ---- HierarchyConfiguration (namespaced singleton `hierarchy`) ----

export interface HierarchyConfigurationSpec {
  parent?: string;
  allowCascadingDeletion?: boolean;
  labels?: MetaKVP[];
  annotations?: MetaKVP[];
}

export interface HierarchyConfigurationStatus {
  children?: string[];
  conditions?: HNCCondition[];
}

export interface HierarchyConfiguration extends KubeObject {
  spec?: HierarchyConfigurationSpec;
  status?: HierarchyConfigurationStatus;
}

// ---- SubnamespaceAnchor (namespaced) ----

export type SubnamespaceAnchorState = 'Missing' | 'Ok' | 'Conflict' | 'Forbidden';
export const ANCHOR_STATES: readonly SubnamespaceAnchorState[] = ['Missing', 'Ok', 'Conflict', 'Forbidden'];

export interface SubnamespaceAnchorSpec {
  labels?: MetaKVP[];
  annotations?: MetaKVP[];
}

export interface SubnamespaceAnchorStatus {
  /** HNC's JSON name for the state is `status`. */
  status?: SubnamespaceAnchorState;
}

export interface SubnamespaceAnchor extends KubeObject {
  spec?: SubnamespaceAnchorSpec;
  status?: SubnamespaceAnchorStatus;
}

// ---- HNCConfiguration (cluster singleton `config`) ----

export type SynchronizationMode = 'Propagate' | 'Ignore' | 'Remove' | 'AllowPropagate';
export const SYNCHRONIZATION_MODES: readonly SynchronizationMode[] = ['Propagate', 'Ignore', 'Remove', 'AllowPropagate'];

export interface ResourceSpec {
  group?: string;
  resource: string;
  mode?: SynchronizationMode;
}

export interface ResourceStatus {
  group: string;
  version: string;
  resource: string;
  mode?: SynchronizationMode;
  numPropagatedObjects?: number;
  numSourceObjects?: number;
}

export interface HNCConfigurationSpec {
  resources?: ResourceSpec[];
}

export interface HNCConfigurationStatus {
  resources?: ResourceStatus[];
  conditions?: HNCCondition[];
}

export interface HNCConfiguration extends KubeObject {
  spec?: HNCConfigurationSpec;
  status?: HNCConfigurationStatus;
}

/** The kinds HNC always propagates (never configurable in spec.resources). */
export const ENFORCED_TYPES: readonly Required<ResourceSpec>[] = [
  { group: 'rbac.authorization.k8s.io', resource: 'roles', mode: 'Propagate' },
  { group: 'rbac.authorization.k8s.io', resource: 'rolebindings', mode: 'Propagate' },
];

// ---- HierarchicalResourceQuota (namespaced) ----

export interface HierarchicalResourceQuotaSpec {
  hard?: Record<string, string>;
}

export interface HierarchicalResourceQuotaStatus {
  hard?: Record<string, string>;
  used?: Record<string, string>;
  requestsSummary?: string;
  limitsSummary?: string;
}

export interface HierarchicalResourceQuota extends KubeObject {
  spec?: HierarchicalResourceQuotaSpec;
  status?: HierarchicalResourceQuotaStatus;
}
