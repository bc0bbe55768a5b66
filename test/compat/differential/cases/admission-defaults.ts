// Differential cases for the small mutating plugins of kube-apiserver's
// default set: DefaultTolerationSeconds (pods) and TaintNodesByCondition
// (nodes), Priority (pods, priority classes). Verified against kube-apiserver v1.32.4.

import type { DiffCase } from '../case.js';

const withSpec = (name: string, extra: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'busybox' }], ...extra },
});
const PODS = '/api/v1/namespaces/{ns}/pods';
// A global default class would change every other case's pods (the cases run in parallel):
// that part is in test/admission/default-plugins.test.ts.

const pod = (name: string, tolerations?: unknown[]) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'busybox' }], ...(tolerations !== undefined ? { tolerations } : {}) },
});

export const cases: DiffCase[] = [
  {
    name: 'admission: DefaultTolerationSeconds adds the not-ready and unreachable tolerations a pod lacks',
    steps: [
      { title: 'a pod without tolerations gets both, 300 s', method: 'POST', path: '/api/v1/namespaces/{ns}/pods', body: pod('bare') },
      {
        title: 'a not-ready toleration of its own is kept; only unreachable is added',
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/pods',
        body: pod('own', [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }]),
      },
      {
        title: 'an empty-key toleration tolerates both',
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/pods',
        body: pod('all', [{ operator: 'Exists' }]),
      },
      {
        title: 'an empty-effect toleration of unreachable counts; a NoSchedule one of not-ready does not',
        method: 'POST',
        path: '/api/v1/namespaces/{ns}/pods',
        body: pod('mixed', [
          { key: 'node.kubernetes.io/unreachable', operator: 'Exists' },
          { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoSchedule' },
        ]),
      },
      { title: 'an update keeps them once', method: 'PATCH', path: '/api/v1/namespaces/{ns}/pods/bare', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { metadata: { labels: { a: 'b' } } } },
      { title: 'dry-run create shows them too', method: 'POST', path: '/api/v1/namespaces/{ns}/pods?dryRun=All', body: pod('dry') },
    ],
  },
  {
    name: 'admission: TaintNodesByCondition taints a new node not-ready:NoSchedule',
    cleanup: [{ method: 'DELETE', path: '/api/v1/nodes/{ns}-n1' }, { method: 'DELETE', path: '/api/v1/nodes/{ns}-n2' }],
    steps: [
      { title: 'a node without taints', method: 'POST', path: '/api/v1/nodes', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: '{ns}-n1' } } },
      {
        title: 'a node that already has the taint keeps its own; other taints stay before it',
        method: 'POST',
        path: '/api/v1/nodes',
        body: {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name: '{ns}-n2' },
          spec: { taints: [{ key: 'dedicated', value: 'x', effect: 'NoExecute' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] },
        },
      },
      { title: 'an update does not add it back', method: 'PATCH', path: '/api/v1/nodes/{ns}-n1', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { spec: { taints: null } } },
    ],
  },
  {
    name: 'admission: Priority resolves a pod priority from its class',
    steps: [
      { title: 'no class: priority 0, PreemptLowerPriority', method: 'POST', path: `${PODS}?dryRun=All`, body: withSpec('p1', {}) },
      { title: 'a system class', method: 'POST', path: `${PODS}?dryRun=All`, body: withSpec('p2', { priorityClassName: 'system-node-critical' }) },
      { title: 'an unknown class is 403', method: 'POST', path: `${PODS}?dryRun=All`, body: withSpec('p3', { priorityClassName: 'nope' }) },
      { title: 'a priority of its own is 403', method: 'POST', path: `${PODS}?dryRun=All`, body: withSpec('p4', { priority: 5 }) },
      { title: 'a preemption policy of its own is 403', method: 'POST', path: `${PODS}?dryRun=All`, body: withSpec('p5', { priority: 0, preemptionPolicy: 'Never' }) },
      { title: 'the same values as the class are accepted', method: 'POST', path: `${PODS}?dryRun=All`, body: withSpec('p6', { priorityClassName: 'system-cluster-critical', priority: 2000000000 }) },
    ],
  },
];
