// The namespace defaults controller (the `default` ServiceAccount and
// kube-root-ca.crt in every namespace) started beside a store that already
// holds them, as `apiary serve` restarted on its store: it must write nothing
// where everything exists. Before it waited for its caches, every namespace the
// namespace informer delivered ahead of the ServiceAccount and ConfigMap
// informers' sync got a create that answered AlreadyExists (20,000 of them on a
// restart with 10,000 namespaces). Counted with the server's own request
// counter (apiserver_request_total), not timed. And a create refused for a
// while is retried (it was dropped until the informers' 5-minute resync: of
// 10,000 namespaces made at once, 7,000 never got kube-root-ca.crt).

import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { RestClient } from '../../src/client/index.js';
import { startControllerManager } from '../../src/controllers/manager.js';
import { request } from '../helpers/http.js';
import { startTestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

const NAMESPACES = 60;
/** Other ConfigMaps: the root-CA informer's list (selected by name) takes longer than the others', as in a real cluster. */
const OTHER_CONFIGMAPS = 1500;
const CA = '-----BEGIN CERTIFICATE-----\ntest\n-----END CERTIFICATE-----\n';

/** apiserver_request_total{verb="POST"} per resource and code. */
async function posts(url: string): Promise<Map<string, number>> {
  const text = (await request(url, 'GET', '/metrics')).text;
  const counts = new Map<string, number>();
  for (const m of text.matchAll(/^apiserver_request_total\{verb="POST",resource="([^"]*)",code="(\d+)"\} (\d+)$/gm)) counts.set(`${m[1]} ${m[2]}`, Number(m[3]));
  return counts;
}

test(`the namespace defaults controller started on ${NAMESPACES} namespaces that hold their defaults creates nothing`, async (t) => {
  const server = await startTestServer();
  t.after(() => server.stop());
  const url = server.url;
  const names = Array.from({ length: NAMESPACES }, (_, i) => `ns-${i}`);
  await Promise.all(
    names.map(async (name) => {
      assert.equal((await request(url, 'POST', '/api/v1/namespaces', { body: { metadata: { name } } })).status, 201);
      assert.equal((await request(url, 'POST', `/api/v1/namespaces/${name}/serviceaccounts`, { body: { metadata: { name: 'default' } } })).status, 201);
      const rootCa = { metadata: { name: 'kube-root-ca.crt' }, data: { 'ca.crt': CA } };
      assert.equal((await request(url, 'POST', `/api/v1/namespaces/${name}/configmaps`, { body: rootCa })).status, 201);
    }),
  );
  for (let i = 0; i < OTHER_CONFIGMAPS; i += 100) {
    await Promise.all(
      Array.from({ length: 100 }, (_, j) =>
        request(url, 'POST', `/api/v1/namespaces/${names[(i + j) % NAMESPACES]}/configmaps`, { body: { metadata: { name: `other-${i + j}` }, data: { a: 'x'.repeat(200) } } }),
      ),
    );
  }
  const before = await posts(url);

  startNamespaceDefaults(t, url);
  // A namespace made now gets its defaults: the controller runs.
  assert.equal((await request(url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'fresh' } } })).status, 201);
  await until('the fresh namespace gets its defaults', async () => {
    const sa = await request(url, 'GET', '/api/v1/namespaces/fresh/serviceaccounts/default');
    const cm = await request(url, 'GET', '/api/v1/namespaces/fresh/configmaps/kube-root-ca.crt');
    return sa.status === 200 && cm.status === 200;
  });
  const after = await posts(url);
  const made = (key: string): number => (after.get(key) ?? 0) - (before.get(key) ?? 0);
  assert.deepEqual(
    { serviceAccounts: made('serviceaccounts 201'), rootCas: made('configmaps 201'), refused: made('serviceaccounts 409') + made('configmaps 409') },
    { serviceAccounts: 1, rootCas: 1, refused: 0 },
    'only the fresh namespace gets creates; none that find the object there',
  );
});

test('a default the server refuses for a while is made once it is allowed', async (t) => {
  const server = await startTestServer();
  t.after(() => server.stop());
  const url = server.url;
  // kube-root-ca.crt may not be created while this policy is bound.
  const policy = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'no-root-ca' },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
      validations: [{ expression: "object.metadata.name != 'kube-root-ca.crt'" }],
    },
  };
  const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'no-root-ca' }, spec: { policyName: 'no-root-ca', validationActions: ['Deny'] } };
  assert.equal((await request(url, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', { body: policy })).status, 201);
  assert.equal((await request(url, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', { body: binding })).status, 201);
  assert.equal((await request(url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'probe' } } })).status, 201);
  const rootCa = { metadata: { name: 'kube-root-ca.crt' }, data: { 'ca.crt': CA } };
  await until('the policy in force', async () => (await request(url, 'POST', '/api/v1/namespaces/probe/configmaps?dryRun=All', { body: rootCa })).status === 422);
  assert.equal((await request(url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'refused' } } })).status, 201);
  const before = await posts(url);

  startNamespaceDefaults(t, url);
  await until('the default ServiceAccount', async () => (await request(url, 'GET', '/api/v1/namespaces/refused/serviceaccounts/default')).status === 200);
  await until('the root CA ConfigMaps refused', async () => ((await posts(url)).get('configmaps 422') ?? 0) - (before.get('configmaps 422') ?? 0) >= 2);
  assert.equal((await request(url, 'GET', '/api/v1/namespaces/refused/configmaps/kube-root-ca.crt')).status, 404);
  assert.equal((await request(url, 'DELETE', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/no-root-ca')).status, 200);
  // Retried with backoff (it was dropped until the informers' resync, 5 minutes on).
  await until('the root CA ConfigMap made on a retry', async () => (await request(url, 'GET', '/api/v1/namespaces/refused/configmaps/kube-root-ca.crt')).status === 200, 20_000);
});

/** The namespace defaults controller alone, against `url`, stopped when the test ends. */
function startNamespaceDefaults(t: TestContext, url: string): void {
  const client = new RestClient({ server: url });
  const controllers = startControllerManager({
    client,
    rootCaData: CA,
    controllers: { namespace: false, systemNamespaces: false, resourceQuota: false, crdCleanup: false, garbageCollector: false, hncPropagation: false, namespaceDefaults: true },
  });
  t.after(async () => {
    await controllers.stop();
    await client.close();
  });
}
