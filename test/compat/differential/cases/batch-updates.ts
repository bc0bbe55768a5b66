// Job and CronJob updates as kube-apiserver 1.32 answers them: what a Job
// may change (parallelism, suspend, activeDeadlineSeconds) and what it may
// not (completions, selector, template while running), a CronJob's schedule
// and time zone changes.

import type { DiffCase } from '../case.js';

const JOBS = '/apis/batch/v1/namespaces/{ns}/jobs';
const CRONJOBS = '/apis/batch/v1/namespaces/{ns}/cronjobs';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const podSpec = { restartPolicy: 'Never', containers: [{ name: 'main', image: 'registry.example/app:1' }] };

export const cases: DiffCase[] = [
  {
    name: 'batch updates: jobs and cronjobs',
    setup: [
      { method: 'POST', path: JOBS, body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { suspend: true, completions: 3, parallelism: 1, template: { spec: podSpec } } } },
      { method: 'POST', path: CRONJOBS, body: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c' }, spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: podSpec } } } } } },
    ],
    steps: [
      { title: 'a Job changes parallelism and its deadline', method: 'PATCH', path: `${JOBS}/j`, headers: MERGE, body: { spec: { parallelism: 2, activeDeadlineSeconds: 100 } }, select: 'spec.parallelism' },
      { title: 'a Job may not change completions', method: 'PATCH', path: `${JOBS}/j?dryRun=All`, headers: MERGE, body: { spec: { completions: 5 } } },
      { title: 'a Job may not change its selector', method: 'PATCH', path: `${JOBS}/j?dryRun=All`, headers: MERGE, body: { spec: { selector: { matchLabels: { other: 'x' } } } } },
      { title: 'a suspended Job may change its template node selector', method: 'PATCH', path: `${JOBS}/j?dryRun=All`, headers: MERGE, body: { spec: { template: { spec: { nodeSelector: { zone: 'a' } } } } }, select: 'spec.template.spec.nodeSelector' },
      // (A template change outside the scheduling directives: upstream quotes the whole internal PodTemplateSpec in Go syntax.)
      { title: 'a CronJob changes its schedule', method: 'PATCH', path: `${CRONJOBS}/c`, headers: MERGE, body: { spec: { schedule: '@hourly' } }, select: 'spec' },
      { title: 'a CronJob to an invalid schedule', method: 'PATCH', path: `${CRONJOBS}/c?dryRun=All`, headers: MERGE, body: { spec: { schedule: '61 * * * *' } } },
      { title: 'a CronJob to an unknown time zone', method: 'PATCH', path: `${CRONJOBS}/c?dryRun=All`, headers: MERGE, body: { spec: { timeZone: 'Nowhere/Else' } } },
    ],
  },
];
