// --allow-privileged (default false, as kube-apiserver): a privileged
// container is refused in a pod, in a pod template of a workload and as an
// ephemeral container, with upstream's field error; allowed when the flag is on.
// The flag is process-wide (as upstream's capabilities), so the servers here run
// one after the other.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';

const privileged = { name: 'c', image: 'busybox', securityContext: { privileged: true } };
const pod = (name: string): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [privileged] } });
const deployment = {
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' },
  spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'ok', image: 'busybox' }], initContainers: [privileged] } } },
};

async function post(url: string, body: unknown): Promise<{ status: number; json: any }> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, json: await r.json() };
}

test('privileged containers are refused by default', async (t) => {
  const server = await startTestServer();
  t.after(() => server.stop());
  await post(`${server.url}/api/v1/namespaces`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  const refused = await post(`${server.url}/api/v1/namespaces/default/pods`, pod('p'));
  assert.equal(refused.status, 422);
  assert.equal(refused.json.message, 'Pod "p" is invalid: spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy');
  assert.equal((await fetch(`${server.url}/api/v1/namespaces/default/pods/p`)).status, 404, 'nothing stored');
  const template = await post(`${server.url}/apis/apps/v1/namespaces/default/deployments`, deployment);
  assert.equal(template.status, 422);
  assert.deepEqual(template.json.details.causes, [{ reason: 'FieldValueForbidden', message: 'Forbidden: disallowed by cluster policy', field: 'spec.template.spec.initContainers[0].securityContext.privileged' }]);
  // An ephemeral container added to a running pod's spec.
  assert.equal((await post(`${server.url}/api/v1/namespaces/default/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'plain' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } })).status, 201);
  const current = await (await fetch(`${server.url}/api/v1/namespaces/default/pods/plain`)).json();
  current.spec.ephemeralContainers = [{ ...privileged, name: 'debug' }];
  const ephemeral = await fetch(`${server.url}/api/v1/namespaces/default/pods/plain/ephemeralcontainers`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(current) });
  assert.equal(ephemeral.status, 422);
  assert.match(((await ephemeral.json()) as { message: string }).message, /spec\.ephemeralContainers\[0\]\.securityContext\.privileged: Forbidden: disallowed by cluster policy/);
});

test('--allow-privileged=true allows them', async (t) => {
  const server = await startTestServer({ allowPrivileged: true });
  t.after(() => server.stop());
  await post(`${server.url}/api/v1/namespaces`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  assert.equal((await post(`${server.url}/api/v1/namespaces/default/pods`, pod('p'))).status, 201);
  assert.equal((await post(`${server.url}/apis/apps/v1/namespaces/default/deployments`, deployment)).status, 201);
});
