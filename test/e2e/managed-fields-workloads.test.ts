// managedFields of the workload kinds as kube-apiserver 1.32.4 records them
// (each checked against the reference server): a DaemonSet's creator owns the
// template-generation annotation, a Job's owns the defaulted manualSelector, a
// ControllerRevision's data is one leaf, pods/ephemeralcontainers writes add
// no entry, and an eviction's budget write is kube-apiserver's status Update.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { request } from '../helpers/http.js';

let server: TestServer;
let base: string;
const NS = 'mf-workloads';
const APPS = `/apis/apps/v1/namespaces/${NS}`;
const PODS = `/api/v1/namespaces/${NS}/pods`;
const MERGE = { 'content-type': 'application/merge-patch+json' };
const container = { name: 'main', image: 'registry.example/app:1' };
const podTemplate = { metadata: { labels: { app: 'x' } }, spec: { containers: [container] } };

interface Entry {
  manager: string;
  operation: string;
  subresource?: string;
  time?: string;
  fieldsV1: Record<string, Record<string, unknown>>;
}

async function create(path: string, body: Record<string, unknown>): Promise<{ metadata: { managedFields: Entry[]; annotations?: Record<string, string> } }> {
  const reply = await request(base, 'POST', `${path}?fieldManager=creator`, { body });
  assert.equal(reply.status, 201, reply.text);
  return reply.json;
}

before(async () => {
  server = await startTestServer();
  base = server.url;
  const ns = await request(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } });
  assert.equal(ns.status, 201, ns.text);
});

after(async () => {
  await server.stop();
});

test('a DaemonSet: the creator owns the template-generation annotation; a given generation ≥ 1 is kept', async () => {
  const spec = { selector: { matchLabels: { app: 'x' } }, template: podTemplate };
  const ds = await create(`${APPS}/daemonsets`, { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds' }, spec });
  assert.equal(ds.metadata.annotations?.['deprecated.daemonset.template.generation'], '1');
  assert.deepEqual(ds.metadata.managedFields[0]!.fieldsV1['f:metadata'], { 'f:annotations': { '.': {}, 'f:deprecated.daemonset.template.generation': {} } });
  const given = await create(`${APPS}/daemonsets`, {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'ds5', annotations: { 'deprecated.daemonset.template.generation': '5' } },
    spec,
  });
  assert.equal(given.metadata.annotations?.['deprecated.daemonset.template.generation'], '5');
});

test("a Job: the creator owns the defaulted spec.manualSelector", async () => {
  const job = await create(`/apis/batch/v1/namespaces/${NS}/jobs`, {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'once' },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [container] } } },
  });
  const spec = job.metadata.managedFields[0]!.fieldsV1['f:spec']!;
  assert.deepEqual(spec['f:manualSelector'], {});
});

test("a ControllerRevision: data (a RawExtension) is one leaf", async () => {
  const rev = await create(`${APPS}/controllerrevisions`, { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, revision: 3, data: { spec: { x: 1, y: { z: [1] } } } });
  assert.deepEqual(rev.metadata.managedFields[0]!.fieldsV1, { 'f:data': {}, 'f:revision': {} });
});

test('pods/ephemeralcontainers: the write adds no managedFields entry', async () => {
  await create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [container] } });
  const reply = await request(base, 'PATCH', `${PODS}/p/ephemeralcontainers?fieldManager=debugger`, {
    body: { spec: { ephemeralContainers: [{ name: 'debug', image: 'busybox', targetContainerName: 'main' }] } },
    headers: { 'content-type': 'application/strategic-merge-patch+json' },
  });
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.spec.ephemeralContainers.length, 1);
  assert.deepEqual(
    reply.json.metadata.managedFields.map((e: Entry) => e.manager),
    ['creator'],
  );
});

test("an eviction: the budget's status write is kube-apiserver's, with the condition it sets", async () => {
  await create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'running', labels: { app: 'web' } }, spec: { containers: [container] } });
  const ready = await request(base, 'PATCH', `${PODS}/running/status`, { body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, headers: MERGE });
  assert.equal(ready.status, 200, ready.text);
  const POLICY = `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`;
  await create(POLICY, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } } });
  const observed = await request(base, 'PATCH', `${POLICY}/web/status?fieldManager=controller`, {
    body: { status: { observedGeneration: 1, disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 } },
    headers: MERGE,
  });
  assert.equal(observed.status, 200, observed.text);
  const evicted = await request(base, 'POST', `${PODS}/running/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'running' } } });
  assert.equal(evicted.status, 201, evicted.text);
  const pdb = await request(base, 'GET', `${POLICY}/web`);
  // Update entries sort by their time's second, then by manager name; the
  // three writes may straddle a second, so the order is checked by that rule.
  const entries: Entry[] = pdb.json.metadata.managedFields;
  const bySecondThenManager = [...entries].sort(
    (p, q) => Math.floor(Date.parse(p.time!) / 1000) - Math.floor(Date.parse(q.time!) / 1000) || (p.manager < q.manager ? -1 : p.manager > q.manager ? 1 : 0),
  );
  assert.deepEqual(entries, bySecondThenManager);
  assert.deepEqual(
    entries.map((e) => [e.manager, e.operation, e.subresource]).sort(),
    [
      ['controller', 'Update', 'status'],
      ['creator', 'Update', undefined],
      ['kube-apiserver', 'Update', 'status'],
    ],
  );
  const byManager = (name: string): Entry => entries.find((e) => e.manager === name)!;
  const status = byManager('kube-apiserver').fieldsV1['f:status'] as Record<string, Record<string, unknown>>;
  assert.ok('f:disruptionsAllowed' in status && 'f:disruptedPods' in status && 'k:{"type":"DisruptionAllowed"}' in status['f:conditions']!, JSON.stringify(status));
  assert.ok(!('f:disruptionsAllowed' in (byManager('controller').fieldsV1['f:status'] as object)), 'the controller no longer owns disruptionsAllowed');
});
