// The built-in resources the typed helpers know: group/version/resource,
// kind and scope. A table, so adding one is a line.

import type { GroupVersionResource } from '../machinery/meta.js';

export interface BuiltinResource extends GroupVersionResource {
  kind: string;
  namespaced: boolean;
}

const core = (resource: string, kind: string, namespaced = true): BuiltinResource => ({ group: '', version: 'v1', resource, kind, namespaced });

export const BUILTIN_RESOURCES = {
  namespaces: core('namespaces', 'Namespace', false),
  nodes: core('nodes', 'Node', false),
  configmaps: core('configmaps', 'ConfigMap'),
  secrets: core('secrets', 'Secret'),
  pods: core('pods', 'Pod'),
  services: core('services', 'Service'),
  serviceaccounts: core('serviceaccounts', 'ServiceAccount'),
  events: core('events', 'Event'),
  endpoints: core('endpoints', 'Endpoints'),
  resourcequotas: core('resourcequotas', 'ResourceQuota'),
  limitranges: core('limitranges', 'LimitRange'),
  persistentvolumeclaims: core('persistentvolumeclaims', 'PersistentVolumeClaim'),
  leases: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true },
  deployments: { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true },
  statefulsets: { group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet', namespaced: true },
  daemonsets: { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true },
  replicasets: { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true },
} satisfies Record<string, BuiltinResource>;

export type BuiltinResourceName = keyof typeof BUILTIN_RESOURCES;
