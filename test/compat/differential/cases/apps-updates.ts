// Updates of apps workloads as kube-apiserver 1.32 answers them: a
// StatefulSet's forbidden fields, a Deployment's and a DaemonSet's selector.

import type { DiffCase } from '../case.js';

const APPS = '/apis/apps/v1/namespaces/{ns}';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const labels = { app: 'u' };
const template = { metadata: { labels }, spec: { containers: [{ name: 'main', image: 'registry.example/app:1' }] } };

export const cases: DiffCase[] = [
  {
    name: 'apps updates: statefulsets, deployments, daemonsets',
    setup: [
      { method: 'POST', path: `${APPS}/statefulsets`, body: { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'ss' }, spec: { serviceName: 's', selector: { matchLabels: labels }, template, volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] } } },
      { method: 'POST', path: `${APPS}/deployments`, body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { selector: { matchLabels: labels }, template } } },
      { method: 'POST', path: `${APPS}/daemonsets`, body: { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds' }, spec: { selector: { matchLabels: labels }, template } } },
    ],
    steps: [
      { title: 'a StatefulSet may change replicas, template and update strategy', method: 'PATCH', path: `${APPS}/statefulsets/ss?dryRun=All`, headers: MERGE, body: { spec: { replicas: 3, updateStrategy: { type: 'OnDelete' } } }, select: 'spec.replicas' },
      { title: 'a StatefulSet may not change its service name or pod management policy', method: 'PATCH', path: `${APPS}/statefulsets/ss?dryRun=All`, headers: MERGE, body: { spec: { serviceName: 'other', podManagementPolicy: 'Parallel' } } },
      { title: 'a StatefulSet may not change its claim templates', method: 'PATCH', path: `${APPS}/statefulsets/ss?dryRun=All`, headers: MERGE, body: { spec: { volumeClaimTemplates: [] } } },
      { title: 'a Deployment may not change its selector', method: 'PATCH', path: `${APPS}/deployments/d?dryRun=All`, headers: MERGE, body: { spec: { selector: { matchLabels: { app: 'u', extra: 'x' } }, template: { metadata: { labels: { app: 'u', extra: 'x' } } } } } },
      { title: 'a DaemonSet may not change its selector', method: 'PATCH', path: `${APPS}/daemonsets/ds?dryRun=All`, headers: MERGE, body: { spec: { selector: { matchLabels: { app: 'u', extra: 'x' } }, template: { metadata: { labels: { app: 'u', extra: 'x' } } } } } },
      { title: 'a Deployment paused and rolled back fields', method: 'PATCH', path: `${APPS}/deployments/d?dryRun=All`, headers: MERGE, body: { spec: { paused: true, minReadySeconds: -1 } } },
    ],
  },
];
