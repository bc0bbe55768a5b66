// Discovery as clients read it: every resource apiary serves (and its
// subresources) in /api/v1 and /apis/<group>/<version>, its group in /apis,
// and its entry in aggregated discovery (apidiscovery.k8s.io/v2, what kubectl
// 1.32 asks for first). The reference serves many more resources: steps
// select the entries of the ones apiary serves.

import type { DiffCase, DiffRequest } from '../case.js';

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/** [group, version, resource] of everything in src/registry/<group>/index.ts, subresources as resource/sub. */
const SERVED: [string, string, string][] = [
  ['', 'v1', 'namespaces'],
  ['', 'v1', 'namespaces/status'],
  ['', 'v1', 'namespaces/finalize'],
  ['', 'v1', 'configmaps'],
  ['', 'v1', 'secrets'],
  ['', 'v1', 'serviceaccounts'],
  ['', 'v1', 'services'],
  ['', 'v1', 'services/status'],
  ['', 'v1', 'pods'],
  ['', 'v1', 'pods/status'],
  ['', 'v1', 'pods/binding'],
  ['', 'v1', 'pods/eviction'],
  ['', 'v1', 'pods/ephemeralcontainers'],
  ['', 'v1', 'events'],
  ['', 'v1', 'endpoints'],
  ['', 'v1', 'nodes'],
  ['', 'v1', 'nodes/status'],
  ['', 'v1', 'limitranges'],
  ['', 'v1', 'resourcequotas'],
  ['', 'v1', 'resourcequotas/status'],
  ['', 'v1', 'replicationcontrollers'],
  ['', 'v1', 'replicationcontrollers/status'],
  ['apps', 'v1', 'deployments'],
  ['apps', 'v1', 'deployments/status'],
  ['apps', 'v1', 'replicasets'],
  ['apps', 'v1', 'replicasets/status'],
  ['apps', 'v1', 'replicasets/scale'],
  ['apps', 'v1', 'statefulsets'],
  ['apps', 'v1', 'statefulsets/status'],
  ['apps', 'v1', 'statefulsets/scale'],
  ['apps', 'v1', 'daemonsets'],
  ['apps', 'v1', 'daemonsets/status'],
  ['apps', 'v1', 'controllerrevisions'],
  ['batch', 'v1', 'jobs'],
  ['batch', 'v1', 'jobs/status'],
  ['batch', 'v1', 'cronjobs'],
  ['batch', 'v1', 'cronjobs/status'],
  ['autoscaling', 'v2', 'horizontalpodautoscalers'],
  ['autoscaling', 'v2', 'horizontalpodautoscalers/status'],
  ['autoscaling', 'v1', 'horizontalpodautoscalers'],
  ['autoscaling', 'v1', 'horizontalpodautoscalers/status'],
  ['policy', 'v1', 'poddisruptionbudgets'],
  ['policy', 'v1', 'poddisruptionbudgets/status'],
  ['coordination.k8s.io', 'v1', 'leases'],
  ['events.k8s.io', 'v1', 'events'],
  ['', 'v1', 'persistentvolumes'],
  ['', 'v1', 'persistentvolumes/status'],
  ['', 'v1', 'podtemplates'],
  ['networking.k8s.io', 'v1', 'networkpolicies'],
  ['networking.k8s.io', 'v1', 'ingresses'],
  ['networking.k8s.io', 'v1', 'ingresses/status'],
  ['networking.k8s.io', 'v1', 'ingressclasses'],
  ['discovery.k8s.io', 'v1', 'endpointslices'],
  ['storage.k8s.io', 'v1', 'storageclasses'],
  ['storage.k8s.io', 'v1', 'csidrivers'],
  ['storage.k8s.io', 'v1', 'csinodes'],
  ['storage.k8s.io', 'v1', 'volumeattachments'],
  ['storage.k8s.io', 'v1', 'volumeattachments/status'],
  ['storage.k8s.io', 'v1', 'csistoragecapacities'],
  ['scheduling.k8s.io', 'v1', 'priorityclasses'],
  ['node.k8s.io', 'v1', 'runtimeclasses'],
  ['certificates.k8s.io', 'v1', 'certificatesigningrequests'],
  ['certificates.k8s.io', 'v1', 'certificatesigningrequests/approval'],
  ['certificates.k8s.io', 'v1', 'certificatesigningrequests/status'],
  ['admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies'],
  ['admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies/status'],
  ['admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicybindings'],
];

function legacySteps(): DiffRequest[] {
  return SERVED.map(([group, version, resource]) => ({
    title: `${group || 'core'}/${version} ${resource}`,
    method: 'GET' as const,
    path: group === '' ? `/api/${version}` : `/apis/${group}/${version}`,
    select: `resources[name=${resource}]`,
  }));
}

function aggregatedSteps(): DiffRequest[] {
  return SERVED.filter(([, , resource]) => !resource.includes('/')).map(([group, version, resource]) => ({
    title: `aggregated ${group || 'core'}/${version} ${resource}`,
    method: 'GET' as const,
    path: group === '' ? '/api' : '/apis',
    headers: { accept: AGGREGATED },
    select: `items[metadata.name=${group}].versions[version=${version}].resources[resource=${resource}]`,
  }));
}

export const cases: DiffCase[] = [
  {
    name: 'discovery: resource lists',
    steps: [
      { title: '/api versions', method: 'GET', path: '/api', select: 'versions' },
      { title: '/api/v1 group version', method: 'GET', path: '/api/v1', select: 'groupVersion' },
      ...['apps', 'batch', 'autoscaling', 'policy', 'coordination.k8s.io', 'events.k8s.io', 'networking.k8s.io', 'discovery.k8s.io', 'storage.k8s.io', 'scheduling.k8s.io', 'node.k8s.io', 'certificates.k8s.io'].map((group) => ({
        title: `/apis group ${group}`,
        method: 'GET' as const,
        path: '/apis',
        select: `groups[name=${group}]`,
      })),
      { title: '/apis/apps', method: 'GET', path: '/apis/apps' },
      { title: 'a group nobody serves', method: 'GET', path: '/apis/nope.example.com' },
      ...legacySteps(),
    ],
  },
  {
    name: 'discovery: aggregated',
    steps: [
      { title: 'aggregated /api: the core group', method: 'GET', path: '/api', headers: { accept: AGGREGATED }, select: 'kind' },
      ...aggregatedSteps(),
      {
        title: 'aggregated: the pods/status subresource',
        method: 'GET',
        path: '/api',
        headers: { accept: AGGREGATED },
        select: 'items[metadata.name=].versions[version=v1].resources[resource=pods].subresources[subresource=status]',
      },
    ],
  },
  {
    name: 'health',
    steps: [
      { title: '/healthz', method: 'GET', path: '/healthz' },
      { title: '/livez', method: 'GET', path: '/livez' },
      { title: '/readyz', method: 'GET', path: '/readyz' },
      { title: '/version major and minor', method: 'GET', path: '/version', select: 'major' },
    ],
  },
];
