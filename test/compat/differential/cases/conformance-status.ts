// What upstream's conformance specs found (test/compat/conformance): the
// /status subresources of cron jobs, jobs, replica sets, stateful sets,
// daemon sets and namespaces keep the metadata a status write changes (their
// status strategies put back only the spec), against kube-apiserver 1.32.

import type { DiffCase } from '../case.js';

const MERGE = { 'content-type': 'application/merge-patch+json' };
const template = { metadata: { labels: { app: 'w' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } };
const podTemplate = { metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
const annotate = (status: Record<string, unknown>, spec: Record<string, unknown>): Record<string, unknown> => ({
  metadata: { annotations: { patchedstatus: 'true' }, labels: { tier: 'status' } },
  spec,
  status,
});

export const cases: DiffCase[] = [
  {
    name: 'conformance: status writes keep metadata changes',
    setup: [
      { method: 'POST', path: '/apis/batch/v1/namespaces/{ns}/cronjobs', body: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'cj' }, spec: { schedule: '*/1 * * * *', jobTemplate: { spec: { template } } } } },
      { method: 'POST', path: '/apis/batch/v1/namespaces/{ns}/jobs', body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'job' }, spec: { suspend: true, template } } },
      { method: 'POST', path: '/apis/apps/v1/namespaces/{ns}/replicasets', body: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs' }, spec: { replicas: 0, selector: { matchLabels: { app: 'w' } }, template: podTemplate } } },
      { method: 'POST', path: '/apis/apps/v1/namespaces/{ns}/statefulsets', body: { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'ss' }, spec: { replicas: 0, serviceName: 'ss', selector: { matchLabels: { app: 'w' } }, template: podTemplate } } },
      { method: 'POST', path: '/apis/apps/v1/namespaces/{ns}/daemonsets', body: { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds' }, spec: { selector: { matchLabels: { app: 'w' } }, template: podTemplate } } },
    ],
    steps: [
      { title: 'cron job status with an annotation and a spec change', method: 'PATCH', path: '/apis/batch/v1/namespaces/{ns}/cronjobs/cj/status', headers: MERGE, body: annotate({ lastScheduleTime: '2026-01-01T00:00:00Z' }, { schedule: '*/5 * * * *' }) },
      { title: 'job status with an annotation and a spec change', method: 'PATCH', path: '/apis/batch/v1/namespaces/{ns}/jobs/job/status', headers: MERGE, body: annotate({ active: 0 }, { parallelism: 3 }) },
      { title: 'replica set status with an annotation and a spec change', method: 'PATCH', path: '/apis/apps/v1/namespaces/{ns}/replicasets/rs/status', headers: MERGE, body: annotate({ replicas: 0, observedGeneration: 1 }, { replicas: 4 }) },
      { title: 'stateful set status with an annotation and a spec change', method: 'PATCH', path: '/apis/apps/v1/namespaces/{ns}/statefulsets/ss/status', headers: MERGE, body: annotate({ replicas: 0, observedGeneration: 1 }, { replicas: 4 }) },
      { title: 'daemon set status with an annotation and a spec change', method: 'PATCH', path: '/apis/apps/v1/namespaces/{ns}/daemonsets/ds/status', headers: MERGE, body: annotate({ currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 }, { minReadySeconds: 9 }) },
      { title: 'namespace status with an annotation', method: 'PATCH', path: '/api/v1/namespaces/{ns}/status', headers: MERGE, body: { metadata: { annotations: { patchedstatus: 'true' } }, status: { conditions: [{ type: 'StatusUpdate', status: 'True', reason: 'E2E', message: 'set by a test' }] } } },
      { title: 'the cron job after', method: 'GET', path: '/apis/batch/v1/namespaces/{ns}/cronjobs/cj' },
      { title: 'the stateful set after', method: 'GET', path: '/apis/apps/v1/namespaces/{ns}/statefulsets/ss' },
    ],
  },
];
