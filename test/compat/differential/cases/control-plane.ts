// What the API server keeps in place itself: the `kubernetes` Service in
// `default` with its Endpoints and EndpointSlice (addresses and the secure
// port differ between the two servers: the steps select the rest), the
// system priority classes (cases/cluster-policy.ts) and the kube-system
// objects (the identity lease's labels and duration, the token tracking
// ConfigMap).

import type { DiffCase } from '../case.js';

const SVC = '/api/v1/namespaces/default/services/kubernetes';
const EP = '/api/v1/namespaces/default/endpoints/kubernetes';
const SLICE = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes';
const part = (title: string, path: string, select: string) => ({ title, method: 'GET' as const, path, select });

export const cases: DiffCase[] = [
  {
    name: 'control plane: the kubernetes service',
    steps: [
      part('labels', SVC, 'metadata.labels'),
      part('type', SVC, 'spec.type'),
      part('cluster IP: the first of the range', SVC, 'spec.clusterIP'),
      part('session affinity', SVC, 'spec.sessionAffinity'),
      part('IP families', SVC, 'spec.ipFamilies'),
      part('IP family policy', SVC, 'spec.ipFamilyPolicy'),
      part('internal traffic policy', SVC, 'spec.internalTrafficPolicy'),
      part('port name', SVC, 'spec.ports[0].name'),
      part('port', SVC, 'spec.ports[0].port'),
      part('port protocol', SVC, 'spec.ports[0].protocol'),
      part('no selector', SVC, 'spec.selector'),
      part('endpoints labels', EP, 'metadata.labels'),
      part('endpoints port name', EP, 'subsets[0].ports[0].name'),
      part('endpoints port protocol', EP, 'subsets[0].ports[0].protocol'),
      part('one address per server', EP, 'subsets[0].addresses.length'),
      part('slice labels', SLICE, 'metadata.labels'),
      part('slice address type', SLICE, 'addressType'),
      part('slice conditions', SLICE, 'endpoints[0].conditions'),
      part('slice port name', SLICE, 'ports[0].name'),
      part('slice generation', SLICE, 'metadata.generation'),
    ],
  },
  {
    name: 'control plane: kube-system objects',
    // Both servers write them a little after kube-system exists (apiary at its next 10 s pass).
    setup: [
      { method: 'GET', path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=apiserver.kubernetes.io%2Fidentity%3Dkube-apiserver', until: { path: 'items.0.spec.leaseDurationSeconds', equals: 3600 } },
      { method: 'GET', path: '/api/v1/namespaces/kube-system/configmaps/kube-apiserver-legacy-service-account-token-tracking', until: { path: 'kind', equals: 'ConfigMap' } },
    ],
    steps: [
      { title: 'the identity lease: labels', method: 'GET', path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=apiserver.kubernetes.io%2Fidentity%3Dkube-apiserver', select: 'items[0].metadata.labels' },
      { title: 'the identity lease: duration', method: 'GET', path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=apiserver.kubernetes.io%2Fidentity%3Dkube-apiserver', select: 'items[0].spec.leaseDurationSeconds' },
      { title: 'the token tracking ConfigMap', method: 'GET', path: '/api/v1/namespaces/kube-system/configmaps/kube-apiserver-legacy-service-account-token-tracking', select: 'data' },
    ],
  },
];
