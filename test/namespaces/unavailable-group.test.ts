// A namespace whose deletion meets an API group that can no longer be
// discovered: an aggregated group whose extension server (a second apiary
// here, serving a custom resource group) has died, so aggregated discovery
// marks it Stale. Upstream's namespace controller waits for such a group
// forever (kubernetes#75788): one dead extension server wedges every namespace
// deletion. apiary's waits as upstream's, with the NamespaceDeletionDiscoveryFailure
// condition, but only for --namespace-deletion-unavailable-group-timeout;
// then it releases the namespace without that group's content.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Namespace } from '../../src/api/core/v1/types.js';
import { RestClient } from '../../src/client/index.js';
import { type RunningControllerManager, startControllerManager } from '../../src/controllers/manager.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { FAST_CONTROLLERS, ns, waitFor, waitGone } from './helpers.js';

const TIMEOUT_MS = 4_000;
let a: TestServer;
let b: TestServer | undefined;
let client: RestClient;
let controllers: RunningControllerManager | undefined;

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

before(async () => {
  a = await startTestServer({ security: { tlsTermination: 'inline' }, apiServiceAvailabilityIntervalMs: 300 });
  b = await startTestServer({
    security: {
      tlsTermination: 'inline',
      tlsSans: ['toys.default.svc'],
      requestheaderClientCaFile: path.join(a.dataDir, 'pki', 'front-proxy-ca.crt'),
      requestheaderAllowedNames: ['front-proxy-client'],
    },
  });
  client = new RestClient(a.admin);
  const bClient = new RestClient(b.admin);
  try {
    await bClient.request({
      method: 'POST',
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      body: {
        apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gizmos.toys.example.com' },
        spec: { group: 'toys.example.com', scope: 'Namespaced', names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
      },
    });
    await waitFor('B serves gizmos', async () => ((await bClient.request<{ groups: Array<{ name: string }> }>({ method: 'GET', path: '/apis' })).groups.some((g) => g.name === 'toys.example.com') ? true : undefined), 15_000);
  } finally {
    await bClient.close();
  }
  const port = Number(new URL(b.url).port);
  await client.namespaces().create(ns('default'));
  await client.request({ method: 'POST', path: '/api/v1/namespaces/default/services', body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'toys' }, spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ port }] } } });
  await client.request({
    method: 'POST',
    path: '/apis/apiregistration.k8s.io/v1/apiservices',
    body: {
      apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.toys.example.com' },
      spec: { group: 'toys.example.com', version: 'v1', service: { namespace: 'default', name: 'toys', port }, caBundle: Buffer.from(b.admin.caData!).toString('base64'), groupPriorityMinimum: 1000, versionPriority: 15 },
    },
  });
  await waitFor('v1.toys.example.com Available', () => availability('True'), 15_000);
  controllers = startControllerManager({ ...FAST_CONTROLLERS, client, namespaceDeletionUnavailableGroupTimeoutMs: TIMEOUT_MS });
  await controllers.systemNamespacesSynced;
});

after(async () => {
  await controllers?.stop();
  await client?.close();
  await b?.stop();
  await a?.stop();
});

async function availability(status: string): Promise<true | undefined> {
  const svc = await client.request<{ status?: { conditions?: Condition[] } }>({ method: 'GET', path: '/apis/apiregistration.k8s.io/v1/apiservices/v1.toys.example.com' });
  return svc.status?.conditions?.some((c) => c.type === 'Available' && c.status === status) === true ? true : undefined;
}

function discoveryFailure(n: Namespace): Condition | undefined {
  return n.status?.conditions?.find((c) => c.type === 'NamespaceDeletionDiscoveryFailure');
}

test('a dead extension server holds a namespace deletion only until the timeout, then the namespace is released', async () => {
  await client.namespaces().create(ns('held'));
  await client.request({ method: 'POST', path: '/api/v1/namespaces/held/configmaps', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } });
  await b!.stop();
  b = undefined;
  await waitFor('v1.toys.example.com unavailable', () => availability('False'), 30_000);

  const started = Date.now();
  await client.namespaces().delete('held');
  // First it is held as upstream holds it: Terminating, the condition naming the group, the rest emptied.
  const held = await waitFor('the discovery failure condition', async () => {
    const n = await client.namespaces<Namespace>().get('held');
    return discoveryFailure(n)?.status === 'True' ? n : undefined;
  });
  assert.equal(held.status?.phase, 'Terminating');
  assert.match(discoveryFailure(held)?.message ?? '', /toys\.example\.com\/v1/);
  await waitFor('the configmap gone', async () => ((await client.request<{ items: unknown[] }>({ method: 'GET', path: '/api/v1/namespaces/held/configmaps' })).items.length === 0 ? true : undefined));
  if (Date.now() - started < TIMEOUT_MS - 1_000) {
    const still = await client.namespaces<Namespace>().get('held');
    assert.deepEqual(still.spec?.finalizers, ['kubernetes'], 'released before the timeout');
  }

  // Past the timeout it is released.
  await waitGone(client, 'held', 30_000);
  assert.ok(Date.now() - started >= TIMEOUT_MS, `released after ${Date.now() - started} ms, before the ${TIMEOUT_MS} ms timeout`);
});
