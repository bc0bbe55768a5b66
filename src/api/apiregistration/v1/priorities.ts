// The priorities kube-apiserver 1.32 gives the local APIServices of its
// built-in group/versions (pkg/controlplane/apiserver/aggregator.go's
// apiVersionPriorities, as a live 1.32.4 lists them), and the ones the CRD
// registration controller gives a custom resource group/version.

export interface APIServicePriority {
  group: number;
  version: number;
}

const BUILT_IN: Record<string, APIServicePriority> = {
  'v1': { group: 18000, version: 1 },
  'apps/v1': { group: 17800, version: 15 },
  'events.k8s.io/v1': { group: 17750, version: 15 },
  'authentication.k8s.io/v1': { group: 17700, version: 15 },
  'authorization.k8s.io/v1': { group: 17600, version: 15 },
  'autoscaling/v2': { group: 17500, version: 30 },
  'autoscaling/v1': { group: 17500, version: 15 },
  'batch/v1': { group: 17400, version: 15 },
  'certificates.k8s.io/v1': { group: 17300, version: 15 },
  'networking.k8s.io/v1': { group: 17200, version: 15 },
  'policy/v1': { group: 17100, version: 15 },
  'rbac.authorization.k8s.io/v1': { group: 17000, version: 15 },
  'storage.k8s.io/v1': { group: 16800, version: 15 },
  'admissionregistration.k8s.io/v1': { group: 16700, version: 15 },
  'apiextensions.k8s.io/v1': { group: 16700, version: 15 },
  'scheduling.k8s.io/v1': { group: 16600, version: 15 },
  'coordination.k8s.io/v1': { group: 16500, version: 15 },
  'node.k8s.io/v1': { group: 16300, version: 15 },
  'discovery.k8s.io/v1': { group: 16200, version: 15 },
  'flowcontrol.apiserver.k8s.io/v1': { group: 16100, version: 21 },
};

/** A custom resource group/version: low group priority, versions ordered kube-like among themselves. */
export const CUSTOM_RESOURCE_PRIORITY: APIServicePriority = { group: 1000, version: 100 };

/** The priority of a built-in group/version, or undefined (upstream skips a built-in without one). */
export function builtInPriority(group: string, version: string): APIServicePriority | undefined {
  return BUILT_IN[group === '' ? version : `${group}/${version}`];
}

/** The APIService name of a group/version: `version.group` (`v1.` for the core group). */
export function apiServiceName(group: string, version: string): string {
  return `${version}.${group}`;
}

/** The label the auto-registration puts on the APIServices it keeps: `onstart` for built-ins, `true` for custom resources. */
export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';
