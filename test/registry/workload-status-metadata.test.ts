// The /status writes of jobs, cron jobs, replica sets, stateful sets and
// daemon sets keep their metadata changes and never their spec, as upstream's
// status strategies (`new.Spec = old.Spec`). Upstream's conformance spec
// "CronJob should support CronJob API operations" patches an annotation
// through /status and expects it back.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../../src/testing/index.js';

type Obj = { metadata: { labels?: Record<string, string>; annotations?: Record<string, string>; generation?: number }; spec: Record<string, unknown>; status?: Record<string, unknown> };

const template = { metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
const jobTemplate = { metadata: { labels: { app: 'w' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } };
const KINDS: Array<{ path: string; kind: string; apiVersion: string; spec: Record<string, unknown>; specPatch: Record<string, unknown>; status: Record<string, unknown>; specField: string }> = [
  { path: 'apis/batch/v1', kind: 'CronJob', apiVersion: 'batch/v1', spec: { schedule: '*/1 * * * *', jobTemplate: { spec: { template: jobTemplate } } }, specPatch: { schedule: '*/5 * * * *' }, status: { lastScheduleTime: '2026-11-28T00:00:00Z' }, specField: 'schedule' },
  { path: 'apis/batch/v1', kind: 'Job', apiVersion: 'batch/v1', spec: { suspend: true, template: jobTemplate }, specPatch: { parallelism: 3 }, status: { active: 0 }, specField: 'parallelism' },
  { path: 'apis/apps/v1', kind: 'ReplicaSet', apiVersion: 'apps/v1', spec: { replicas: 1, selector: { matchLabels: { app: 'w' } }, template }, specPatch: { replicas: 4 }, status: { replicas: 0, observedGeneration: 1 }, specField: 'replicas' },
  { path: 'apis/apps/v1', kind: 'StatefulSet', apiVersion: 'apps/v1', spec: { replicas: 1, serviceName: 'w', selector: { matchLabels: { app: 'w' } }, template }, specPatch: { replicas: 4 }, status: { replicas: 0, observedGeneration: 1 }, specField: 'replicas' },
  { path: 'apis/apps/v1', kind: 'DaemonSet', apiVersion: 'apps/v1', spec: { selector: { matchLabels: { app: 'w' } }, template }, specPatch: { minReadySeconds: 9 }, status: { currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0, observedGeneration: 1 }, specField: 'minReadySeconds' },
];

test('workload /status writes keep metadata changes, spec as stored', async (t) => {
  const server = await startTestServer({ kubeConfig: false });
  t.after(() => server.stop());
  for (const k of KINDS) {
    await t.test(k.kind, async () => {
      const plural = `${k.kind.toLowerCase()}s`;
      const base = `${server.url}/${k.path}/namespaces/default/${plural}`;
      const created = await fetch(base, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiVersion: k.apiVersion, kind: k.kind, metadata: { name: 'w', labels: { tier: 'front' } }, spec: k.spec }),
      });
      assert.equal(created.status, 201, await created.text());
      const stored = (await (await fetch(`${base}/w`)).json()) as Obj;
      const patched = await fetch(`${base}/w/status`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ metadata: { annotations: { patchedstatus: 'true' }, labels: { tier: 'back' } }, spec: k.specPatch, status: k.status }),
      });
      const body = (await patched.json()) as Obj;
      assert.equal(patched.status, 200, JSON.stringify(body));
      assert.equal(body.metadata.annotations?.['patchedstatus'], 'true');
      const after = (await (await fetch(`${base}/w`)).json()) as Obj;
      assert.equal(after.metadata.annotations?.['patchedstatus'], 'true');
      assert.equal(after.metadata.labels?.['tier'], 'back');
      assert.deepEqual(after.spec[k.specField], stored.spec[k.specField]);
      assert.equal(after.metadata.generation, stored.metadata.generation);
    });
  }
});

test('namespace /status writes keep metadata changes (upstream\'s namespaceStatusStrategy)', async (t) => {
  const server = await startTestServer({ kubeConfig: false });
  t.after(() => server.stop());
  const created = await fetch(`${server.url}/api/v1/namespaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'ns-status' } }) });
  assert.equal(created.status, 201, await created.text());
  const patched = await fetch(`${server.url}/api/v1/namespaces/ns-status/status`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/merge-patch+json' },
    body: JSON.stringify({ metadata: { annotations: { 'e2e-patched-ns-status': 'ns-status' } }, status: { conditions: [{ type: 'StatusUpdate', status: 'True', reason: 'E2E', message: 'Set from an e2e test' }] } }),
  });
  const body = (await patched.json()) as Obj & { status: { conditions?: unknown[] } };
  assert.equal(patched.status, 200, JSON.stringify(body));
  assert.equal(body.metadata.annotations?.['e2e-patched-ns-status'], 'ns-status');
  assert.equal(body.status.conditions?.length, 1);
});
