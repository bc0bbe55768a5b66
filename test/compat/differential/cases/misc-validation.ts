// Validation of less central kinds as kube-apiserver 1.32 words it: RBAC
// rules and bindings, Ingresses, NetworkPolicies, claims, budgets,
// autoscalers, priority and storage classes, leases. Dry-run creates.

import type { DiffCase } from '../case.js';

const post = (title: string, path: string, body: Record<string, unknown>) => ({ title, method: 'POST' as const, path: `${path}?dryRun=All`, body });
const NS = '/namespaces/{ns}';

export const cases: DiffCase[] = [
  {
    name: 'misc validation: rbac, networking, storage, policy, autoscaling, scheduling, coordination',
    steps: [
      post('Role: a rule without verbs, a rule with nonResourceURLs in a namespace', `/apis/rbac.authorization.k8s.io/v1${NS}/roles`, {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['pods'] }, { verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      }),
      post('RoleBinding: an unknown roleRef kind, a subject without a name, a ServiceAccount subject with an apiGroup', `/apis/rbac.authorization.k8s.io/v1${NS}/rolebindings`, {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'b' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Thing', name: 'r' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io' }, { kind: 'ServiceAccount', name: 'sa', apiGroup: 'rbac.authorization.k8s.io' }, { kind: 'Robot', name: 'x' }],
      }),
      post('Ingress: a rule without a backend service port, a bad host, an unknown pathType', `/apis/networking.k8s.io/v1${NS}/ingresses`, {
        apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'i' },
        spec: { rules: [{ host: '*.bad*.example.com', http: { paths: [{ path: '/', pathType: 'Sometimes', backend: { service: { name: 's', port: {} } } }, { path: 'relative', pathType: 'Prefix', backend: { service: { name: 's', port: { number: 80 } } } }] } }] },
      }),
      post('NetworkPolicy: an unknown policy type, a bad CIDR, an except outside its CIDR', `/apis/networking.k8s.io/v1${NS}/networkpolicies`, {
        apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'n' },
        spec: { podSelector: {}, policyTypes: ['Sideways'], ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/33' } }, { ipBlock: { cidr: '10.0.0.0/16', except: ['192.168.0.0/24'] } }], ports: [{ port: 70000 }] }] },
      }),
      post('PersistentVolumeClaim: no access modes, a negative request, an unknown volume mode', `/api/v1${NS}/persistentvolumeclaims`, {
        apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: { resources: { requests: { storage: '-1Gi' } }, volumeMode: 'Tape' },
      }),
      // (Both minAvailable and maxUnavailable set: upstream prints the spec with Go pointer addresses, which differ per run.)
      post('PodDisruptionBudget: a percentage over 100%', `/apis/policy/v1${NS}/poddisruptionbudgets`, {
        apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'p' }, spec: { minAvailable: '150%', selector: { matchLabels: { a: 'b' } } },
      }),
      post('HorizontalPodAutoscaler: maxReplicas below minReplicas, a metric without its target', `/apis/autoscaling/v2${NS}/horizontalpodautoscalers`, {
        apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' },
        spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, minReplicas: 5, maxReplicas: 2, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization' } } }] },
      }),
      post('HorizontalPodAutoscaler (v1): a target utilization below 1', `/apis/autoscaling/v1${NS}/horizontalpodautoscalers`, {
        apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h1' },
        spec: { scaleTargetRef: { kind: 'Deployment', name: 'd' }, maxReplicas: 2, targetCPUUtilizationPercentage: 0 },
      }),
      post('PriorityClass: a value above one billion, an unknown preemption policy', '/apis/scheduling.k8s.io/v1/priorityclasses', {
        apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'diff-pc' }, value: 2000000000, preemptionPolicy: 'Sometimes',
      }),
      post('StorageClass: no provisioner, an unknown reclaim policy and binding mode', '/apis/storage.k8s.io/v1/storageclasses', {
        apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'diff-sc' }, reclaimPolicy: 'Keep', volumeBindingMode: 'Eventually',
      }),
      post('Lease: negative duration and transitions', `/apis/coordination.k8s.io/v1${NS}/leases`, {
        apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { leaseDurationSeconds: 0, leaseTransitions: -1 },
      }),
      post('ServiceAccount: a secret reference and pull secret without names', `/api/v1${NS}/serviceaccounts`, {
        apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' }, secrets: [{}], imagePullSecrets: [{}],
      }),
    ],
  },
];
