// Workload validation as kube-apiserver 1.32 words it: a Deployment's
// strategy and deadlines, a StatefulSet's policies, a DaemonSet's update
// strategy, a Job's counts and modes, a CronJob's schedule and policies.
// Dry-run creates of one broken field set each.

import type { DiffCase } from '../case.js';

const APPS = '/apis/apps/v1/namespaces/{ns}';
const BATCH = '/apis/batch/v1/namespaces/{ns}';
const labels = { app: 'w' };
const template = (restartPolicy = 'Always'): Record<string, unknown> => ({ metadata: { labels }, spec: { restartPolicy, containers: [{ name: 'main', image: 'registry.example/app:1' }] } });
const post = (title: string, path: string, kind: string, group: string, name: string, spec: Record<string, unknown>) => ({
  title,
  method: 'POST' as const,
  path: `${path}?dryRun=All`,
  body: { apiVersion: group, kind, metadata: { name }, spec },
});

export const cases: DiffCase[] = [
  {
    name: 'workload validation: apps and batch',
    steps: [
      post('Deployment: maxSurge and maxUnavailable both 0, negative history, deadline under minReadySeconds', `${APPS}/deployments`, 'Deployment', 'apps/v1', 'd1', {
        selector: { matchLabels: labels }, template: template(), revisionHistoryLimit: -1, minReadySeconds: 10, progressDeadlineSeconds: 5,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } },
      }),
      post('Deployment: Recreate with rollingUpdate, a percentage over 100%', `${APPS}/deployments`, 'Deployment', 'apps/v1', 'd2', {
        selector: { matchLabels: labels }, template: template(), strategy: { type: 'Recreate', rollingUpdate: { maxSurge: '150%' } },
      }),
      post('Deployment: a selector the template does not match, restartPolicy Never', `${APPS}/deployments`, 'Deployment', 'apps/v1', 'd3', {
        selector: { matchLabels: { app: 'other' } }, template: template('Never'),
      }),
      post('StatefulSet: unknown policies, negative replicas', `${APPS}/statefulsets`, 'StatefulSet', 'apps/v1', 's1', {
        selector: { matchLabels: labels }, template: template(), serviceName: 's', replicas: -1, podManagementPolicy: 'Random', updateStrategy: { type: 'Sometimes' },
      }),
      post('StatefulSet: a partition below zero, ordinals start below zero', `${APPS}/statefulsets`, 'StatefulSet', 'apps/v1', 's2', {
        selector: { matchLabels: labels }, template: template(), serviceName: 's', updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: -1 } }, ordinals: { start: -1 },
      }),
      post('DaemonSet: an unknown update strategy', `${APPS}/daemonsets`, 'DaemonSet', 'apps/v1', 'ds1', {
        selector: { matchLabels: labels }, template: template(), updateStrategy: { type: 'Sometimes' },
      }),
      post('DaemonSet: maxSurge and maxUnavailable both 0', `${APPS}/daemonsets`, 'DaemonSet', 'apps/v1', 'ds2', {
        selector: { matchLabels: labels }, template: template(), updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } },
      }),
      post('Job: negative counts, a template restartPolicy Always', `${BATCH}/jobs`, 'Job', 'batch/v1', 'j1', {
        template: { spec: { restartPolicy: 'Always', containers: [{ name: 'main', image: 'i' }] } }, parallelism: -1, completions: -2, backoffLimit: -3, activeDeadlineSeconds: 0, ttlSecondsAfterFinished: -1,
      }),
      post('Job: an unknown completion mode; Indexed without completions', `${BATCH}/jobs`, 'Job', 'batch/v1', 'j2', {
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'i' }] } }, completionMode: 'Indexed',
      }),
      post('CronJob: a bad schedule, an unknown concurrency policy, a negative deadline', `${BATCH}/cronjobs`, 'CronJob', 'batch/v1', 'c1', {
        schedule: 'every minute', concurrencyPolicy: 'Sometimes', startingDeadlineSeconds: -1, successfulJobsHistoryLimit: -1,
        jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'i' }] } } } },
      }),
      post('CronJob: an unknown time zone; TZ in the schedule', `${BATCH}/cronjobs`, 'CronJob', 'batch/v1', 'c2', {
        schedule: 'TZ=UTC */5 * * * *', timeZone: 'Mars/Olympus',
        jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'i' }] } } } },
      }),
    ],
  },
];
