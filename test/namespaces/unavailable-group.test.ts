// A namespace whose deletion meets an API group that cannot be discovered (an
// APIService whose extension server is gone). Upstream's namespace controller
// waits for such a group forever (kubernetes#75788), so one dead extension
// server wedges every namespace deletion. apiary waits for it only as long as
// --namespace-deletion-unavailable-group-timeout, then releases the namespace
// and says so in the NamespaceDeletionDiscoveryFailure condition.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Namespace } from '../../src/api/core/v1/types.js';
import { type Cluster, ns, startCluster, waitFor, waitGone } from './helpers.js';

async function registerDeadApiService(cluster: Cluster): Promise<void> {
  // A Service with no endpoints: the group is listed in /apis but its version answers 503.
  await cluster.client.request({ method: 'POST', path: '/api/v1/namespaces/default/services', body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'gone' }, spec: { ports: [{ port: 443 }] } } });
  await cluster.client.request({
    method: 'POST',
    path: '/apis/apiregistration.k8s.io/v1/apiservices',
    body: {
      apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1alpha1.gone.example.com' },
      spec: { group: 'gone.example.com', version: 'v1alpha1', service: { namespace: 'default', name: 'gone', port: 443 }, insecureSkipTLSVerify: true, groupPriorityMinimum: 1000, versionPriority: 15 },
    },
  });
  await waitFor('the dead group in discovery', async () => {
    const groups = await cluster.client.request<{ groups: Array<{ name: string }> }>({ method: 'GET', path: '/apis' });
    return groups.groups.some((g) => g.name === 'gone.example.com') ? true : undefined;
  });
}

function discoveryCondition(namespace: Namespace): { status?: string; message?: string } | undefined {
  return namespace.status?.conditions?.find((c) => c.type === 'NamespaceDeletionDiscoveryFailure');
}

test('a group whose discovery keeps failing holds a deletion only until the timeout', async (t) => {
  const cluster = await startCluster({ controllers: { namespaceDeletionUnavailableGroupTimeoutMs: 2_000 } });
  t.after(() => cluster.stop());
  await registerDeadApiService(cluster);

  await cluster.client.namespaces().create(ns('held'));
  await cluster.client.request({ method: 'POST', path: '/api/v1/namespaces/held/configmaps', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } });
  const started = Date.now();
  await cluster.client.namespaces().delete('held');

  // First it is held, with upstream's condition naming the group.
  const held = await waitFor('the discovery failure condition', async () => {
    const n = await cluster.client.namespaces<Namespace>().get('held');
    return discoveryCondition(n)?.status === 'True' ? n : undefined;
  });
  assert.match(discoveryCondition(held)?.message ?? '', /gone\.example\.com\/v1alpha1/);
  // The content of the groups that could be discovered is already gone.
  await waitFor('the configmap gone', async () => {
    const list = await cluster.client.request<{ items: unknown[] }>({ method: 'GET', path: '/api/v1/namespaces/held/configmaps' });
    return list.items.length === 0 ? true : undefined;
  });

  await waitGone(cluster.client, 'held', 15_000);
  assert.ok(Date.now() - started >= 2_000, 'released before the timeout');
});

test('without the timeout passing the namespace stays Terminating, as upstream', async (t) => {
  const cluster = await startCluster({ controllers: { namespaceDeletionUnavailableGroupTimeoutMs: 600_000 } });
  t.after(() => cluster.stop());
  await registerDeadApiService(cluster);

  await cluster.client.namespaces().create(ns('waits'));
  await cluster.client.namespaces().delete('waits');
  await waitFor('the discovery failure condition', async () => {
    const n = await cluster.client.namespaces<Namespace>().get('waits');
    return discoveryCondition(n)?.status === 'True' ? n : undefined;
  });
  await new Promise((r) => setTimeout(r, 2_500));
  const still = await cluster.client.namespaces<Namespace>().get('waits');
  assert.equal(still.status?.phase, 'Terminating');
  assert.deepEqual(still.spec?.finalizers, ['kubernetes']);
});
