// The workload APIs: apps/v1 replicasets, statefulsets, daemonsets,
// controllerrevisions; batch/v1 jobs and cronjobs; policy/v1
// poddisruptionbudgets — create (defaults, generated selectors), invalid
// bodies, get, list and Table; the scale and status subresources; and the
// pods' POST subresources binding and eviction, and ephemeralcontainers.
// (The reference's controller manager runs no workload controllers, so
// statuses stay as the servers write them.)

import type { DiffCase, DiffRequest } from '../case.js';

const APPS = '/apis/apps/v1/namespaces/{ns}';
const BATCH = '/apis/batch/v1/namespaces/{ns}';
const POLICY = '/apis/policy/v1/namespaces/{ns}';
const HPA2 = '/apis/autoscaling/v2/namespaces/{ns}';
const HPA1 = '/apis/autoscaling/v1/namespaces/{ns}';
const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const PODS = '/api/v1/namespaces/{ns}/pods';
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
/** Ages in Table cells. */
const AGE = ['^\\d+[smhd]$'];

const container = { name: 'main', image: 'registry.example/app:1' };
const template = (labels: Record<string, string>, spec: Record<string, unknown> = {}): Record<string, unknown> => ({
  metadata: { labels },
  spec: { containers: [container], ...spec },
});

/** create, get, list and the list as a Table of one valid object of a kind. */
function basics(kind: string, base: string, resource: string, body: Record<string, unknown>): DiffRequest[] {
  const name = (body['metadata'] as { name: string }).name;
  return [
    { title: `create a ${kind}`, method: 'POST', path: `${base}/${resource}`, body },
    { title: `get the ${kind}`, method: 'GET', path: `${base}/${resource}/${name}` },
    { title: `list ${resource}`, method: 'GET', path: `${base}/${resource}` },
    { title: `${resource} as a Table`, method: 'GET', path: `${base}/${resource}`, headers: TABLE, mask: AGE },
  ];
}

export const cases: DiffCase[] = [
  {
    name: 'workloads: replicasets',
    steps: [
      ...basics('ReplicaSet', APPS, 'replicasets', { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs' }, spec: { replicas: 2, selector: { matchLabels: { app: 'rs' } }, template: template({ app: 'rs' }) } }),
      {
        title: 'an invalid ReplicaSet: negative replicas, empty selector, restartPolicy Never, activeDeadlineSeconds',
        method: 'POST',
        path: `${APPS}/replicasets`,
        body: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'bad' }, spec: { replicas: -1, selector: {}, template: template({ a: 'b' }, { restartPolicy: 'Never', activeDeadlineSeconds: 5 }) } },
      },
      { title: 'a ReplicaSet without a selector', method: 'POST', path: `${APPS}/replicasets`, body: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'nosel' }, spec: { template: template({ a: 'b' }) } } },
      { title: 'the selector is immutable', method: 'PATCH', path: `${APPS}/replicasets/rs`, headers: MERGE, body: { spec: { selector: { matchLabels: { app: 'other' } }, template: { metadata: { labels: { app: 'other' } } } } } },
      { title: 'its scale', method: 'GET', path: `${APPS}/replicasets/rs/scale` },
      { title: 'scaled to 4', method: 'PATCH', path: `${APPS}/replicasets/rs/scale`, headers: MERGE, body: { spec: { replicas: 4 } } },
      { title: 'a status write', method: 'PATCH', path: `${APPS}/replicasets/rs/status`, headers: MERGE, body: { status: { replicas: 4, readyReplicas: 3, availableReplicas: 2, observedGeneration: 2 } } },
      { title: 'status: more ready than replicas', method: 'PATCH', path: `${APPS}/replicasets/rs/status`, headers: MERGE, body: { status: { replicas: 1, readyReplicas: 3 } } },
      { title: 'the Table after the status write', method: 'GET', path: `${APPS}/replicasets/rs`, headers: TABLE, mask: AGE },
    ],
  },
  {
    name: 'workloads: statefulsets, daemonsets, controllerrevisions',
    steps: [
      ...basics('StatefulSet', APPS, 'statefulsets', {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'db' },
        spec: {
          serviceName: 'db',
          selector: { matchLabels: { app: 'db' } },
          template: template({ app: 'db' }),
          volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
        },
      }),
      {
        title: 'an invalid StatefulSet',
        method: 'POST',
        path: `${APPS}/statefulsets`,
        body: { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'bad' }, spec: { replicas: -1, podManagementPolicy: 'Foo', selector: { matchLabels: { app: 'c' } }, template: template({ app: 'b' }) } },
      },
      { title: 'a StatefulSet spec change beyond the updatable fields', method: 'PATCH', path: `${APPS}/statefulsets/db`, headers: MERGE, body: { spec: { serviceName: 'other' } } },
      { title: 'a StatefulSet scaled', method: 'PATCH', path: `${APPS}/statefulsets/db/scale`, headers: MERGE, body: { spec: { replicas: 3 } } },
      ...basics('DaemonSet', APPS, 'daemonsets', { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: template({ app: 'agent' }, { nodeSelector: { 'kubernetes.io/os': 'linux' } }) } }),
      { title: 'a DaemonSet template change bumps the template generation', method: 'PATCH', path: `${APPS}/daemonsets/agent`, headers: MERGE, body: { spec: { template: { spec: { containers: [{ name: 'main', image: 'registry.example/app:2' }] } } } } },
      { title: 'an invalid DaemonSet', method: 'POST', path: `${APPS}/daemonsets`, body: { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'bad' }, spec: { selector: { matchLabels: { app: 'c' } }, template: template({ app: 'b' }) } } },
      ...basics('ControllerRevision', APPS, 'controllerrevisions', { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'rev-1' }, revision: 1, data: { spec: { x: 1 } } }),
      { title: 'an invalid ControllerRevision', method: 'POST', path: `${APPS}/controllerrevisions`, body: { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'bad' }, revision: -1 } },
    ],
  },
  {
    name: 'workloads: jobs and cronjobs',
    steps: [
      ...basics('Job', BATCH, 'jobs', { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'once' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [container] } } } }),
      { title: 'a Job with restartPolicy Always', method: 'POST', path: `${BATCH}/jobs`, body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'bad' }, spec: { parallelism: -1, template: { spec: { containers: [container] } } } } },
      { title: 'an Indexed Job without completions', method: 'POST', path: `${BATCH}/jobs`, body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'idx' }, spec: { completionMode: 'Indexed', template: { spec: { restartPolicy: 'Never', containers: [container] } } } } },
      { title: "a Job's completions are immutable", method: 'PATCH', path: `${BATCH}/jobs/once`, headers: MERGE, body: { spec: { completions: 3 } } },
      { title: 'a Job by field selector status.successful', method: 'GET', path: `${BATCH}/jobs?fieldSelector=status.successful=0` },
      ...basics('CronJob', BATCH, 'cronjobs', {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: { name: 'tick' },
        spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [container] } } } } },
      }),
      {
        title: 'an invalid CronJob: schedule, concurrency policy, restart policy',
        method: 'POST',
        path: `${BATCH}/cronjobs`,
        body: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'bad' }, spec: { schedule: 'bad', concurrencyPolicy: 'Foo', jobTemplate: { spec: { template: { spec: { containers: [container] } } } } } },
      },
      { title: 'a CronJob minute out of range', method: 'POST', path: `${BATCH}/cronjobs`, body: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'bad2' }, spec: { schedule: '0-60 * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [container] } } } } } } },
      { title: 'a CronJob status write', method: 'PATCH', path: `${BATCH}/cronjobs/tick/status`, headers: MERGE, body: { status: { lastScheduleTime: '2026-01-01T00:00:00Z' } } },
    ],
  },
  {
    name: 'workloads: poddisruptionbudgets and eviction',
    setup: [
      { method: 'POST', path: PODS, body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pending', labels: { app: 'web' } }, spec: { containers: [container] } } },
      { method: 'POST', path: PODS, body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'running', labels: { app: 'web' } }, spec: { containers: [container] } } },
      { method: 'PATCH', path: `${PODS}/running/status`, headers: MERGE, body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } } },
    ],
    steps: [
      ...basics('PodDisruptionBudget', POLICY, 'poddisruptionbudgets', { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } } }),
      {
        title: 'minAvailable and maxUnavailable together',
        method: 'POST',
        path: `${POLICY}/poddisruptionbudgets`,
        body: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'bad' }, spec: { minAvailable: '120%', unhealthyPodEvictionPolicy: 'Never' } },
      },
      { title: 'an eviction named for another pod', method: 'POST', path: `${PODS}/running/eviction`, body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'other' } } },
      { title: 'evicting a running pod under a budget the controller has not seen', method: 'POST', path: `${PODS}/running/eviction`, body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'running' } } },
      { title: 'the budget, observed, with no disruption allowed', method: 'PATCH', path: `${POLICY}/poddisruptionbudgets/web/status`, headers: MERGE, body: { status: { observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 } } },
      { title: 'evicting it would violate the budget', method: 'POST', path: `${PODS}/running/eviction`, body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'running' } } },
      { title: 'one disruption allowed', method: 'PATCH', path: `${POLICY}/poddisruptionbudgets/web/status`, headers: MERGE, body: { status: { disruptionsAllowed: 1, currentHealthy: 2, expectedPods: 2 } } },
      { title: 'dry-run eviction', method: 'POST', path: `${PODS}/running/eviction?dryRun=All`, body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'running' } } },
      { title: 'the eviction', method: 'POST', path: `${PODS}/running/eviction`, body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'running' } } },
      { title: 'the budget took it', method: 'GET', path: `${POLICY}/poddisruptionbudgets/web`, mask: ['"running":"[^"]+"'] },
      { title: 'a pending pod is evicted without asking the budget', method: 'POST', path: `${PODS}/pending/eviction`, body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'pending' } } },
      { title: 'evicting a missing pod', method: 'POST', path: `${PODS}/missing/eviction`, body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'missing' } } },
    ],
  },
  {
    name: 'workloads: pods/binding and ephemeralcontainers',
    setup: [{ method: 'POST', path: PODS, body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [container] } } }],
    steps: [
      { title: 'a binding named for another pod', method: 'POST', path: `${PODS}/p/binding`, body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'q' }, target: { name: 'node-a' } } },
      { title: 'a binding to a Pod', method: 'POST', path: `${PODS}/p/binding`, body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Pod' } } },
      { title: 'the binding', method: 'POST', path: `${PODS}/p/binding`, body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p', annotations: { 'scheduler.example/reason': 'test' } }, target: { name: 'node-a' } } },
      { title: 'the bound pod', method: 'GET', path: `${PODS}/p` },
      { title: 'a second binding', method: 'POST', path: `${PODS}/p/binding`, body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { name: 'node-b' } } },
      { title: 'binding a missing pod', method: 'POST', path: `${PODS}/missing/binding`, body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'missing' }, target: { name: 'node-a' } } },
      { title: 'PUT on binding', method: 'PUT', path: `${PODS}/p/binding`, body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { name: 'node-a' } } },
      { title: 'an ephemeral container added', method: 'PATCH', path: `${PODS}/p/ephemeralcontainers`, headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: { spec: { ephemeralContainers: [{ name: 'debug', image: 'busybox', targetContainerName: 'main' }] } } },
      { title: 'an ephemeral container changed', method: 'PATCH', path: `${PODS}/p/ephemeralcontainers`, headers: { 'content-type': 'application/json-patch+json' }, body: [{ op: 'replace', path: '/spec/ephemeralContainers/0/image', value: 'alpine' }], mask: ['may not be changed[\\s\\S]*'] },
      { title: 'an ephemeral container without an image', method: 'PATCH', path: `${PODS}/p/ephemeralcontainers`, headers: { 'content-type': 'application/json-patch+json' }, body: [{ op: 'add', path: '/spec/ephemeralContainers/-', value: { name: 'x2' } }] },
      { title: 'get ephemeralcontainers', method: 'GET', path: `${PODS}/p/ephemeralcontainers` },
    ],
    // A bound pod is deleted gracefully (30 s, no kubelet here to finish it): gone at once, the namespace is not held up.
    cleanup: [{ method: 'DELETE', path: `${PODS}/p?gracePeriodSeconds=0` }],
  },

  {
    name: 'workloads: horizontalpodautoscalers v2 and v1',
    steps: [
      ...basics('HorizontalPodAutoscaler', HPA2, 'horizontalpodautoscalers', { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'plain' }, spec: { scaleTargetRef: target, maxReplicas: 5 } }),
      {
        title: 'v2 with two metrics and a behavior',
        method: 'POST',
        path: `${HPA2}/horizontalpodautoscalers`,
        body: {
          apiVersion: 'autoscaling/v2',
          kind: 'HorizontalPodAutoscaler',
          metadata: { name: 'multi' },
          spec: {
            scaleTargetRef: target,
            maxReplicas: 5,
            metrics: [
              { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
              { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } },
            ],
            behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
          },
        },
      },
      { title: 'the same read as v1: CPU target and annotations', method: 'GET', path: `${HPA1}/horizontalpodautoscalers/multi` },
      { title: 'v1 list', method: 'GET', path: `${HPA1}/horizontalpodautoscalers` },
      { title: 'a v1 create with no target', method: 'POST', path: `${HPA1}/horizontalpodautoscalers`, body: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'v1' }, spec: { scaleTargetRef: target, maxReplicas: 3 } } },
      { title: 'read as v2', method: 'GET', path: `${HPA2}/horizontalpodautoscalers/v1` },
      { title: 'a v1 update keeps the v2-only metric', method: 'PATCH', path: `${HPA1}/horizontalpodautoscalers/multi`, headers: MERGE, body: { spec: { maxReplicas: 7 } } },
      { title: 'read back as v2', method: 'GET', path: `${HPA2}/horizontalpodautoscalers/multi` },
      {
        title: 'an invalid v2',
        method: 'POST',
        path: `${HPA2}/horizontalpodautoscalers`,
        body: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'bad' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: '', name: '' }, minReplicas: 0, maxReplicas: 0, metrics: [{ type: 'Foo' }, { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization' } } }] } },
      },
      { title: 'an invalid v1', method: 'POST', path: `${HPA1}/horizontalpodautoscalers`, body: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'bad1' }, spec: { scaleTargetRef: target, minReplicas: 3, maxReplicas: 2, targetCPUUtilizationPercentage: -1 } } },
      { title: 'v1 as a Table', method: 'GET', path: `${HPA1}/horizontalpodautoscalers`, headers: TABLE, mask: AGE },
    ],
  },
];
