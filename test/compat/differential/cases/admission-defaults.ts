// Differential cases for the small mutating plugins of kube-apiserver's
// default set: DefaultTolerationSeconds (pods) and TaintNodesByCondition
// (nodes). Verified against kube-apiserver v1.32.4.

import type { DiffCase } from '../case.js';

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
];
