// Pod and workload warnings (src/api/core/v1/pod-warnings.ts). The differential
// case test/compat/differential/cases/warnings.ts compares nearly every one with
// kube-apiserver 1.32; here the branches no request there can reach: a pod
// overhead (it needs a RuntimeClass), cluster trust bundles (feature-gated off),
// an empty projected source (refused by validation), a TZ in a stored schedule
// (refused on create), and the fractional-quantity rounding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/machinery/meta.js';
import { cronJobWarnings, podTemplateWarnings, podWarnings } from '../../src/api/core/v1/pod-warnings.js';

const pod = (spec: Record<string, unknown>, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', ...(annotations === undefined ? {} : { annotations }) },
  spec: { containers: [{ name: 'main', image: 'i' }], ...spec },
});

test('a pod overhead with a fraction of a byte is warned, in canonical form', () => {
  assert.deepEqual(podWarnings(pod({ overhead: { memory: '0.5', 'ephemeral-storage': '1k', cpu: '100m' } })), [
    'spec.overhead[memory]: fractional byte value "500m" is invalid, must be an integer',
  ]);
});

test('projected volumes: cluster trust bundles named by name or signer, an empty source', () => {
  const volumes = [
    {
      name: 'v',
      projected: {
        sources: [{ clusterTrustBundle: { name: 'n', path: 'a' } }, { clusterTrustBundle: { signerName: 'example.com/s', path: 'a/b' } }, {}],
      },
    },
  ];
  assert.deepEqual(podWarnings(pod({ volumes })), [
    'volume "v" (Projected): overlapping paths: "a/b" (ClusterTrustBundle "example.com/s") with "a" (ClusterTrustBundle "n")',
    'volume "v" (Projected) has no sources provided',
  ]);
});

test('AppArmor annotations are warned in templates only (a pod\'s are synced to its fields)', () => {
  const annotations = { 'container.apparmor.security.beta.kubernetes.io/main': 'runtime/default' };
  assert.deepEqual(podWarnings(pod({}, annotations)), []);
  assert.deepEqual(podTemplateWarnings('template', { metadata: { annotations }, spec: { containers: [{ name: 'main' }] } }), [
    'template.metadata.annotations[container.apparmor.security.beta.kubernetes.io/main]: deprecated since v1.30; use the "appArmorProfile" field instead',
  ]);
  const withField = { metadata: { annotations }, spec: { securityContext: { appArmorProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'main' }] } };
  assert.deepEqual(podTemplateWarnings('template', withField), []);
});

test('a cronjob update whose stored schedule names a TZ is warned at upstream\'s path', () => {
  const cronJob = (generation: number): KubeObject => ({
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'c', generation },
    spec: { schedule: 'CRON_TZ=UTC 0 * * * *', jobTemplate: { spec: { template: { spec: { containers: [{ name: 'main' }] } } } } },
  });
  assert.deepEqual(cronJobWarnings.warningsOnUpdate(cronJob(1), cronJob(1)), [
    'cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details',
  ]);
});
