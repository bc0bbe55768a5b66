// core/v1 built-in types: the fields apiary reads, defaults or validates, with
// their exact wire names. Anything else a client sends is kept as-is unless the
// schema prunes it. Every interface is structurally a KubeObject.

import type { KubeObject, ObjectMeta } from '../../../machinery/meta.js';

export type Quantity = string | number;
export type ResourceList = Record<string, Quantity>;

export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: 'Active' | 'Terminating'; conditions?: NamespaceCondition[] };
}

export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  immutable?: boolean;
}

export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  immutable?: boolean;
}

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export interface LocalObjectReference {
  name?: string;
}

export interface ServiceAccount extends KubeObject {
  secrets?: ObjectReference[];
  imagePullSecrets?: LocalObjectReference[];
  automountServiceAccountToken?: boolean;
}

export interface ServicePort {
  name?: string;
  protocol?: 'TCP' | 'UDP' | 'SCTP';
  appProtocol?: string;
  port: number;
  targetPort?: number | string;
  nodePort?: number;
}

export interface ServiceSpec {
  type?: 'ClusterIP' | 'NodePort' | 'LoadBalancer' | 'ExternalName';
  ports?: ServicePort[];
  selector?: Record<string, string>;
  clusterIP?: string;
  clusterIPs?: string[];
  externalName?: string;
  externalIPs?: string[];
  sessionAffinity?: 'None' | 'ClientIP';
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  internalTrafficPolicy?: 'Cluster' | 'Local';
  externalTrafficPolicy?: 'Cluster' | 'Local';
  publishNotReadyAddresses?: boolean;
}

export interface Service extends KubeObject {
  spec?: ServiceSpec;
  status?: { loadBalancer?: { ingress?: LoadBalancerIngress[] }; conditions?: unknown[] };
}

export interface LoadBalancerIngress {
  ip?: string;
  hostname?: string;
  ipMode?: string;
  ports?: unknown[];
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: Record<string, unknown>;
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
  hostPort?: number;
  protocol?: 'TCP' | 'UDP' | 'SCTP';
  hostIP?: string;
}

export interface ResourceRequirements {
  limits?: ResourceList;
  requests?: ResourceList;
}

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  ports?: ContainerPort[];
  env?: EnvVar[];
  resources?: ResourceRequirements;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean; subPath?: string }[];
  imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  terminationMessagePath?: string;
  terminationMessagePolicy?: 'File' | 'FallbackToLogsOnError';
  restartPolicy?: string;
  securityContext?: { privileged?: boolean; [field: string]: unknown };
  [field: string]: unknown;
}

export interface Volume {
  name: string;
  [source: string]: unknown;
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  dnsPolicy?: 'ClusterFirst' | 'ClusterFirstWithHostNet' | 'Default' | 'None';
  nodeSelector?: Record<string, string>;
  serviceAccountName?: string;
  serviceAccount?: string;
  nodeName?: string;
  hostNetwork?: boolean;
  securityContext?: Record<string, unknown>;
  schedulerName?: string;
  enableServiceLinks?: boolean;
  priority?: number;
  tolerations?: Record<string, unknown>[];
  [field: string]: unknown;
}

export interface PodStatus {
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  conditions?: unknown[];
  hostIP?: string;
  podIP?: string;
  podIPs?: { ip: string }[];
  nominatedNodeName?: string;
  startTime?: string;
  qosClass?: 'Guaranteed' | 'Burstable' | 'BestEffort';
  containerStatuses?: unknown[];
  [field: string]: unknown;
}

export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: PodStatus;
}

export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  spec?: PodSpec;
}

export interface Event extends KubeObject {
  involvedObject?: ObjectReference;
  reason?: string;
  message?: string;
  source?: { component?: string; host?: string };
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  count?: number;
  type?: string;
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string };
  action?: string;
  related?: ObjectReference;
  reportingComponent?: string;
  reportingInstance?: string;
}

export interface EndpointAddress {
  ip: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: ObjectReference;
}

export interface EndpointPort {
  name?: string;
  port: number;
  protocol?: 'TCP' | 'UDP' | 'SCTP';
  appProtocol?: string;
}

export interface Endpoints extends KubeObject {
  subsets?: { addresses?: EndpointAddress[]; notReadyAddresses?: EndpointAddress[]; ports?: EndpointPort[] }[];
}

export interface Node extends KubeObject {
  spec?: { podCIDR?: string; podCIDRs?: string[]; providerID?: string; unschedulable?: boolean; taints?: unknown[] };
  status?: { capacity?: ResourceList; allocatable?: ResourceList; conditions?: unknown[]; addresses?: unknown[]; [field: string]: unknown };
}

export interface LimitRangeItem {
  type: string;
  max?: ResourceList;
  min?: ResourceList;
  default?: ResourceList;
  defaultRequest?: ResourceList;
  maxLimitRequestRatio?: ResourceList;
}

export interface LimitRange extends KubeObject {
  spec?: { limits: LimitRangeItem[] };
}

export interface ResourceQuota extends KubeObject {
  spec?: { hard?: ResourceList; scopes?: string[]; scopeSelector?: Record<string, unknown> };
  status?: { hard?: ResourceList; used?: ResourceList };
}

export interface ReplicationController extends KubeObject {
  spec?: { replicas?: number; minReadySeconds?: number; selector?: Record<string, string>; template?: PodTemplateSpec };
  status?: {
    replicas?: number;
    fullyLabeledReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    observedGeneration?: number;
    conditions?: unknown[];
  };
}

export interface PersistentVolumeClaimSpec {
  accessModes?: string[];
  selector?: Record<string, unknown>;
  resources?: { requests?: ResourceList; limits?: ResourceList };
  volumeName?: string;
  storageClassName?: string;
  volumeMode?: 'Filesystem' | 'Block';
  dataSource?: Record<string, unknown>;
  dataSourceRef?: Record<string, unknown>;
  volumeAttributesClassName?: string;
}

export interface PersistentVolumeClaim extends KubeObject {
  spec?: PersistentVolumeClaimSpec;
  status?: {
    phase?: 'Pending' | 'Bound' | 'Lost';
    accessModes?: string[];
    capacity?: ResourceList;
    allocatedResources?: ResourceList;
    conditions?: unknown[];
    [field: string]: unknown;
  };
}
