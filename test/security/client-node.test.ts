// @kubernetes/client-node over TLS with verification: the admin kubeconfig
// (client certificate), a token user confined to its namespace (the 403 it
// sees carries upstream's Status), and a watch scoped to that namespace.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CoreV1Api, KubeConfig, RbacAuthorizationV1Api, Watch } from '@kubernetes/client-node';
import { secureRequest, startSecureServer, tokenKubeconfig } from './helpers.js';

let server: Awaited<ReturnType<typeof startSecureServer>>;

before(async () => {
  server = await startSecureServer();
});
after(() => server.stop());

function client(file: string): { kc: KubeConfig; core: CoreV1Api } {
  const kc = new KubeConfig();
  kc.loadFromFile(file);
  return { kc, core: kc.makeApiClient(CoreV1Api) };
}

test('client-node: admin over TLS, a tenant confined to its namespace, a scoped watch', async () => {
  const admin = client(server.kubeconfigPath);
  assert.equal(admin.kc.getCurrentCluster()?.skipTLSVerify ?? false, false);
  await admin.core.createNamespace({ body: { metadata: { name: 'team-a' } } });
  await admin.core.createNamespace({ body: { metadata: { name: 'team-b' } } });
  const rbac = admin.kc.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRoleBinding({
    namespace: 'team-a',
    body: {
      metadata: { name: 'alice-edit' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
    },
  });

  const alice = client(tokenKubeconfig(server, 'alice-cn', 'alice-token'));
  await alice.core.createNamespacedConfigMap({ namespace: 'team-a', body: { metadata: { name: 'settings' }, data: { a: 'b' } } });
  const list = await alice.core.listNamespacedConfigMap({ namespace: 'team-a' });
  assert.deepEqual(list.items.map((c) => c.metadata?.name).filter((n) => n === 'settings'), ['settings']);
  await assert.rejects(alice.core.listNamespacedConfigMap({ namespace: 'team-b' }), (err: { code?: number; body?: string }) => {
    assert.equal(err.code, 403);
    assert.equal(JSON.parse(err.body!).message, 'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "team-b"');
    return true;
  });

  const seen: string[] = [];
  const watch = new Watch(alice.kc);
  const req = await watch.watch('/api/v1/namespaces/team-a/configmaps', {}, (_type, obj: { metadata: { namespace: string; name: string } }) => {
    seen.push(`${obj.metadata.namespace}/${obj.metadata.name}`);
  }, () => {});
  try {
    await secureRequest(server.url, server.ca, 'POST', '/api/v1/namespaces/team-b/configmaps', { cert: server.admin.certData!, key: server.admin.keyData!, body: { metadata: { name: 'b' } } });
    await secureRequest(server.url, server.ca, 'POST', '/api/v1/namespaces/team-a/configmaps', { cert: server.admin.certData!, key: server.admin.keyData!, body: { metadata: { name: 'end' } } });
    const deadline = Date.now() + 5000;
    while (!seen.includes('team-a/end') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(seen.includes('team-a/end'), seen.join(','));
    assert.ok(seen.every((s) => s.startsWith('team-a/')), seen.join(','));
  } finally {
    req.abort();
  }
});
