// Validation of nodes, namespaces, replication controllers, certificate
// signing requests and aggregated cluster roles as kube-apiserver 1.32 words
// it. Dry-run creates (cluster-scoped names are prefixed diff-).

import type { DiffCase } from '../case.js';

const post = (title: string, path: string, body: Record<string, unknown>) => ({ title, method: 'POST' as const, path: `${path}?dryRun=All`, body });

export const cases: DiffCase[] = [
  {
    name: 'misc validation 3: nodes, namespaces, replication controllers, CSRs, cluster roles',
    steps: [
      post('Node: a bad pod CIDR, a taint with an unknown effect and a bad key', '/api/v1/nodes', {
        apiVersion: 'v1', kind: 'Node', metadata: { name: 'diff-node' }, spec: { podCIDR: '10.0.0.0/40', taints: [{ key: 'bad key', effect: 'Sometimes' }, { key: 'a', value: 'b', effect: 'NoSchedule' }, { key: 'a', value: 'c', effect: 'NoSchedule' }] },
      }),
      post('Namespace: a bad finalizer name', '/api/v1/namespaces', {
        apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'diff-ns-bad' }, spec: { finalizers: ['bad finalizer'] },
      }),
      post('ReplicationController: a selector the template does not match, negative replicas', '/api/v1/namespaces/{ns}/replicationcontrollers', {
        apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc' },
        spec: { replicas: -1, selector: { app: 'x' }, template: { metadata: { labels: { app: 'y' } }, spec: { containers: [{ name: 'main', image: 'i' }] } } },
      }),
      post('CertificateSigningRequest: no signer, an unknown usage, a request that is not PEM', '/apis/certificates.k8s.io/v1/certificatesigningrequests', {
        apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'diff-csr' }, spec: { request: Buffer.from('not pem').toString('base64'), usages: ['flying'] },
      }),
      post('ClusterRole: an aggregation rule with an invalid selector', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'diff-agg' }, aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Near' }] }] },
      }),
      post('PodTemplate: a template whose pod spec has no containers', '/api/v1/namespaces/{ns}/podtemplates', {
        apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'pt' }, template: { spec: { containers: [] } },
      }),
    ],
  },
];
