// The built-in resources apiary serves: one line each, with the facts
// discovery shows (kube-apiserver 1.32) and the strategy that drives the
// generic store. Adding a resource = a type, a strategy and a line here.
// A resource served in a second form of another one's objects (events.k8s.io
// events are core events) names that one in `storedAs`, with the conversion.

import type { ResourceType, Verb } from './rest.js';
import type { Strategy } from './strategy.js';
import { configMapStrategy } from './strategies/configmaps.js';
import { namespaceStrategy } from './strategies/namespaces.js';
import { secretStrategy } from './strategies/secrets.js';
import { serviceAccountStrategy } from './strategies/serviceaccounts.js';
import { serviceStrategy } from './strategies/services.js';
import { podStrategy } from './strategies/pods.js';
import { eventStrategy } from './strategies/events.js';
import { endpointsStrategy } from './strategies/endpoints.js';
import { nodeStrategy } from './strategies/nodes.js';
import { limitRangeStrategy } from './strategies/limitranges.js';
import { resourceQuotaStrategy } from './strategies/resourcequotas.js';
import { persistentVolumeClaimStrategy } from './strategies/persistentvolumeclaims.js';
import { replicationControllerStrategy } from './strategies/replicationcontrollers.js';
import { leaseStrategy } from './strategies/leases.js';
import { deploymentStrategy } from './strategies/deployments.js';
import { eventsV1Strategy } from './strategies/events-v1.js';
import { controllerRevisionStrategy, daemonSetStrategy, replicaSetStrategy, statefulSetStrategy } from './strategies/workloads-apps.js';
import { cronJobStrategy, jobStrategy, podDisruptionBudgetStrategy } from './strategies/workloads-batch.js';
import { horizontalPodAutoscalerV1Strategy, horizontalPodAutoscalerV2Strategy } from './strategies/horizontalpodautoscalers.js';
import { hpaToV1, hpaToV2 } from '../api/autoscaling/v1/conversion.js';
import { clusterRoleBindingStrategy, clusterRoleStrategy, roleBindingStrategy, roleStrategy } from './strategies/rbac.js';
import { ingressClassStrategy, ingressStrategy, networkPolicyStrategy } from './strategies/networking.js';
import { persistentVolumeStrategy, podTemplateStrategy } from './strategies/persistentvolumes.js';
import { endpointSliceStrategy } from './strategies/endpointslices.js';
import { csiDriverStrategy, csiNodeStrategy, csiStorageCapacityStrategy, storageClassStrategy, volumeAttachmentStrategy } from './strategies/storage.js';
import { certificateSigningRequestStrategy, priorityClassStrategy, runtimeClassStrategy } from './strategies/cluster-policy.js';
import { mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy } from './strategies/webhookconfigurations.js';
import { validatingAdmissionPolicyBindingStrategy, validatingAdmissionPolicyStrategy } from './strategies/validatingadmissionpolicies.js';
import { eventFromCore, eventToCore } from '../api/events/v1/conversion.js';
import type { Conversion } from './converting-store.js';
import type { KubeObject } from '../machinery/meta.js';
import { flowcontrolEntries } from './flowcontrol/index.js';

export interface CatalogEntry {
  type: ResourceType;
  strategy: Strategy;
  /**
   * The objects are another entry's (listed before this one), stored in its
   * form under its keys and converted on every read and write.
   */
  storedAs?: { group: string; resource: string; conversion: Conversion };
  /** Drops unknown fields, returning their paths (default: by the schema registry). */
  prune?: (obj: KubeObject) => string[];
}

const ALL: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const NO_COLLECTION_DELETE: Verb[] = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

interface Line {
  group: string;
  version: string;
  resource: string;
  kind: string;
  singular: string;
  short?: string[];
  categories?: string[];
  verbs?: Verb[];
  strategy: Strategy;
  storedAs?: CatalogEntry['storedAs'];
}

function entry(l: Line): CatalogEntry {
  const sub = Object.keys(l.strategy.subresources ?? {});
  if (l.strategy.scale !== undefined) sub.push('scale');
  const out: CatalogEntry = {
    type: {
      group: l.group,
      version: l.version,
      resource: l.resource,
      kind: l.kind,
      listKind: `${l.kind}List`,
      singularName: l.singular,
      namespaced: l.strategy.namespaced,
      verbs: l.verbs ?? ALL,
      shortNames: l.short ?? [],
      categories: l.categories ?? [],
      subresources: sub,
    },
    strategy: l.strategy,
  };
  if (l.storedAs !== undefined) out.storedAs = l.storedAs;
  return out;
}

const entries: CatalogEntry[] = [
  entry({ group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', singular: 'namespace', short: ['ns'], verbs: NO_COLLECTION_DELETE, strategy: namespaceStrategy }),
  entry({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', singular: 'configmap', short: ['cm'], strategy: configMapStrategy }),
  entry({ group: '', version: 'v1', resource: 'secrets', kind: 'Secret', singular: 'secret', strategy: secretStrategy }),
  entry({ group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', singular: 'serviceaccount', short: ['sa'], strategy: serviceAccountStrategy }),
  entry({ group: '', version: 'v1', resource: 'services', kind: 'Service', singular: 'service', short: ['svc'], categories: ['all'], strategy: serviceStrategy }),
  entry({ group: '', version: 'v1', resource: 'pods', kind: 'Pod', singular: 'pod', short: ['po'], categories: ['all'], strategy: podStrategy }),
  entry({ group: '', version: 'v1', resource: 'events', kind: 'Event', singular: 'event', short: ['ev'], strategy: eventStrategy }),
  entry({ group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', singular: 'endpoints', short: ['ep'], strategy: endpointsStrategy }),
  entry({ group: '', version: 'v1', resource: 'nodes', kind: 'Node', singular: 'node', short: ['no'], strategy: nodeStrategy }),
  entry({ group: '', version: 'v1', resource: 'limitranges', kind: 'LimitRange', singular: 'limitrange', short: ['limits'], strategy: limitRangeStrategy }),
  entry({ group: '', version: 'v1', resource: 'resourcequotas', kind: 'ResourceQuota', singular: 'resourcequota', short: ['quota'], strategy: resourceQuotaStrategy }),
  entry({ group: '', version: 'v1', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', singular: 'persistentvolumeclaim', short: ['pvc'], strategy: persistentVolumeClaimStrategy }),
  entry({ group: '', version: 'v1', resource: 'replicationcontrollers', kind: 'ReplicationController', singular: 'replicationcontroller', short: ['rc'], categories: ['all'], strategy: replicationControllerStrategy }),
  entry({ group: '', version: 'v1', resource: 'persistentvolumes', kind: 'PersistentVolume', singular: 'persistentvolume', short: ['pv'], strategy: persistentVolumeStrategy }),
  entry({ group: '', version: 'v1', resource: 'podtemplates', kind: 'PodTemplate', singular: 'podtemplate', strategy: podTemplateStrategy }),
  entry({ group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', singular: 'deployment', short: ['deploy'], categories: ['all'], strategy: deploymentStrategy }),
  entry({ group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', singular: 'replicaset', short: ['rs'], categories: ['all'], strategy: replicaSetStrategy }),
  entry({ group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet', singular: 'statefulset', short: ['sts'], categories: ['all'], strategy: statefulSetStrategy }),
  entry({ group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', singular: 'daemonset', short: ['ds'], categories: ['all'], strategy: daemonSetStrategy }),
  entry({ group: 'apps', version: 'v1', resource: 'controllerrevisions', kind: 'ControllerRevision', singular: 'controllerrevision', strategy: controllerRevisionStrategy }),
  entry({ group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', singular: 'job', categories: ['all'], strategy: jobStrategy }),
  entry({ group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob', singular: 'cronjob', short: ['cj'], categories: ['all'], strategy: cronJobStrategy }),
  // autoscaling: v2 is stored and preferred (listed first); v1 is the same objects converted.
  entry({ group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', singular: 'horizontalpodautoscaler', short: ['hpa'], categories: ['all'], strategy: horizontalPodAutoscalerV2Strategy }),
  entry({ group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', singular: 'horizontalpodautoscaler', short: ['hpa'], categories: ['all'], strategy: horizontalPodAutoscalerV1Strategy,
    storedAs: { group: 'autoscaling', resource: 'horizontalpodautoscalers', conversion: { toStored: hpaToV2, fromStored: hpaToV1 } } }),
  entry({ group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', singular: 'poddisruptionbudget', short: ['pdb'], strategy: podDisruptionBudgetStrategy }),
  entry({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', singular: 'lease', strategy: leaseStrategy }),
  entry({ group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', singular: 'event', short: ['ev'], strategy: eventsV1Strategy,
    storedAs: { group: '', resource: 'events', conversion: { toStored: eventToCore, fromStored: eventFromCore } } }),
  entry({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', singular: 'clusterrolebinding', strategy: clusterRoleBindingStrategy }),
  entry({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', singular: 'clusterrole', strategy: clusterRoleStrategy }),
  entry({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', singular: 'rolebinding', strategy: roleBindingStrategy }),
  entry({ group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicies', kind: 'ValidatingAdmissionPolicy', singular: 'validatingadmissionpolicy', categories: ['api-extensions'], strategy: validatingAdmissionPolicyStrategy }),
  entry({ group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicybindings', kind: 'ValidatingAdmissionPolicyBinding', singular: 'validatingadmissionpolicybinding', categories: ['api-extensions'], strategy: validatingAdmissionPolicyBindingStrategy }),
  entry({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role', singular: 'role', strategy: roleStrategy }),
  entry({ group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies', kind: 'NetworkPolicy', singular: 'networkpolicy', short: ['netpol'], strategy: networkPolicyStrategy }),
  entry({ group: 'networking.k8s.io', version: 'v1', resource: 'ingresses', kind: 'Ingress', singular: 'ingress', short: ['ing'], strategy: ingressStrategy }),
  entry({ group: 'networking.k8s.io', version: 'v1', resource: 'ingressclasses', kind: 'IngressClass', singular: 'ingressclass', strategy: ingressClassStrategy }),
  entry({ group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', singular: 'endpointslice', strategy: endpointSliceStrategy }),
  entry({ group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses', kind: 'StorageClass', singular: 'storageclass', short: ['sc'], strategy: storageClassStrategy }),
  entry({ group: 'storage.k8s.io', version: 'v1', resource: 'csidrivers', kind: 'CSIDriver', singular: 'csidriver', strategy: csiDriverStrategy }),
  entry({ group: 'storage.k8s.io', version: 'v1', resource: 'csinodes', kind: 'CSINode', singular: 'csinode', strategy: csiNodeStrategy }),
  entry({ group: 'storage.k8s.io', version: 'v1', resource: 'volumeattachments', kind: 'VolumeAttachment', singular: 'volumeattachment', strategy: volumeAttachmentStrategy }),
  entry({ group: 'storage.k8s.io', version: 'v1', resource: 'csistoragecapacities', kind: 'CSIStorageCapacity', singular: 'csistoragecapacity', strategy: csiStorageCapacityStrategy }),
  entry({ group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses', kind: 'PriorityClass', singular: 'priorityclass', short: ['pc'], strategy: priorityClassStrategy }),
  entry({ group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses', kind: 'RuntimeClass', singular: 'runtimeclass', strategy: runtimeClassStrategy }),
  entry({ group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', singular: 'certificatesigningrequest', short: ['csr'], strategy: certificateSigningRequestStrategy }),
  entry({ group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration', singular: 'mutatingwebhookconfiguration', categories: ['api-extensions'], strategy: mutatingWebhookConfigurationStrategy }),
  entry({ group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', singular: 'validatingwebhookconfiguration', categories: ['api-extensions'], strategy: validatingWebhookConfigurationStrategy }),
  ...flowcontrolEntries,
];

// An entry stored as another one's objects is stored in that one's group, version and kind.
for (const e of entries) {
  if (e.storedAs === undefined) continue;
  const { group, resource } = e.storedAs;
  const stored = entries.find((s) => s.type.group === group && s.type.resource === resource);
  if (stored === undefined) throw new Error(`catalog: ${e.type.resource}.${e.type.group} is stored as unknown ${resource}.${group}`);
  e.type.storageVersion = { group, version: stored.type.version, kind: stored.type.kind };
}

export const catalog: CatalogEntry[] = entries;
