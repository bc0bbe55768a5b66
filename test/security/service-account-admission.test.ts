// ServiceAccount admission on a secure server, as kube-apiserver 1.32's plugin:
// the default account, the projected token volume and its mounts, automount
// opt-outs, the missing-account refusal (nothing written), the wait for a
// `default` account made a moment later, image pull secrets, mountable-secret
// enforcement; and through kubectl with apiary's controllers making `default`.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RestClient } from '../../src/client/index.js';
import { startControllerManager } from '../../src/controllers/manager.js';
import { runKubectl } from '../helpers/kubectl.js';
import { secureRequest, startSecureServer } from './helpers.js';

let server: Awaited<ReturnType<typeof startSecureServer>>;

before(async () => {
  server = await startSecureServer();
});
after(() => server.stop());

const asAdmin = { cert: '', key: '' };
async function call(method: string, path: string, body?: unknown) {
  asAdmin.cert = server.admin.certData!;
  asAdmin.key = server.admin.keyData!;
  return secureRequest(server.url, server.ca, method, path, { ...asAdmin, ...(body !== undefined ? { body } : {}) });
}

async function namespace(name: string, withDefault = true): Promise<void> {
  assert.equal((await call('POST', '/api/v1/namespaces', { metadata: { name } })).status, 201);
  if (withDefault) assert.equal((await call('POST', `/api/v1/namespaces/${name}/serviceaccounts`, { metadata: { name: 'default' } })).status, 201);
}

function pod(name: string, spec: Record<string, unknown> = {}): unknown {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } };
}

const TOKEN_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

test('a pod without an account gets default and the kube-api-access projected volume in every (init) container', async () => {
  await namespace('sa-basic');
  const created = await call('POST', '/api/v1/namespaces/sa-basic/pods', pod('p', {
    initContainers: [{ name: 'i', image: 'busybox' }],
    containers: [{ name: 'c', image: 'nginx' }, { name: 'd', image: 'nginx', volumeMounts: [{ name: 'x', mountPath: TOKEN_PATH }] }],
    volumes: [{ name: 'x', emptyDir: {} }],
  }));
  assert.equal(created.status, 201, created.text);
  const spec = created.json.spec;
  assert.equal(spec.serviceAccountName, 'default');
  assert.equal(spec.serviceAccount, 'default');
  const volume = spec.volumes[1];
  assert.match(volume.name, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  assert.deepEqual(volume.projected, {
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
    defaultMode: 420,
  });
  const mount = { name: volume.name, readOnly: true, mountPath: TOKEN_PATH };
  assert.deepEqual(spec.initContainers[0].volumeMounts, [mount]);
  assert.deepEqual(spec.containers[0].volumeMounts, [mount]);
  // A container with something mounted at the token path keeps it.
  assert.deepEqual(spec.containers[1].volumeMounts, [{ name: 'x', mountPath: TOKEN_PATH }]);
  // Stored as answered.
  assert.deepEqual((await call('GET', '/api/v1/namespaces/sa-basic/pods/p')).json.spec.volumes, spec.volumes);
});

test('automountServiceAccountToken: false on the pod or the account leaves the token out; the pod wins', async () => {
  await namespace('sa-automount');
  const off = await call('POST', '/api/v1/namespaces/sa-automount/pods', pod('off', { automountServiceAccountToken: false }));
  assert.equal(off.status, 201, off.text);
  assert.equal(off.json.spec.volumes, undefined);
  assert.equal(off.json.spec.containers[0].volumeMounts, undefined);

  assert.equal((await call('POST', '/api/v1/namespaces/sa-automount/serviceaccounts', { metadata: { name: 'quiet' }, automountServiceAccountToken: false })).status, 201);
  const quiet = await call('POST', '/api/v1/namespaces/sa-automount/pods', pod('quiet', { serviceAccountName: 'quiet' }));
  assert.equal(quiet.status, 201, quiet.text);
  assert.equal(quiet.json.spec.volumes, undefined);
  const wins = await call('POST', '/api/v1/namespaces/sa-automount/pods', pod('wins', { serviceAccountName: 'quiet', automountServiceAccountToken: true }));
  assert.equal(wins.status, 201, wins.text);
  assert.match(wins.json.spec.volumes[0].name, /^kube-api-access-/);
  // An existing kube-api-access-* volume is reused, not doubled.
  const reuse = await call('POST', '/api/v1/namespaces/sa-automount/pods', pod('reuse', { volumes: [{ name: 'kube-api-access-mine', emptyDir: {} }] }));
  assert.equal(reuse.status, 201, reuse.text);
  assert.deepEqual(reuse.json.spec.volumes, [{ name: 'kube-api-access-mine', emptyDir: {} }]);
  assert.deepEqual(reuse.json.spec.containers[0].volumeMounts, [{ name: 'kube-api-access-mine', readOnly: true, mountPath: TOKEN_PATH }]);
});

test('a pod naming a missing account is refused with upstream message, and nothing is written', async () => {
  await namespace('sa-missing');
  const refused = await call('POST', '/api/v1/namespaces/sa-missing/pods', pod('p', { serviceAccountName: 'nope' }));
  assert.equal(refused.status, 403);
  assert.deepEqual(refused.json, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'pods "p" is forbidden: error looking up service account sa-missing/nope: serviceaccount "nope" not found',
    reason: 'Forbidden',
    details: { name: 'p', kind: 'pods' },
    code: 403,
  });
  assert.equal((await call('GET', '/api/v1/namespaces/sa-missing/pods/p')).status, 404);
});

test('the default account is waited for (about a second), then its absence is a 403', async () => {
  await namespace('sa-late', false);
  const started = Date.now();
  const pending = call('POST', '/api/v1/namespaces/sa-late/pods', pod('p'));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal((await call('POST', '/api/v1/namespaces/sa-late/serviceaccounts', { metadata: { name: 'default' } })).status, 201);
  const created = await pending;
  assert.equal(created.status, 201, created.text);
  assert.ok(Date.now() - started >= 300);

  await namespace('sa-never', false);
  const before = Date.now();
  const refused = await call('POST', '/api/v1/namespaces/sa-never/pods', pod('p'));
  assert.equal(refused.status, 403);
  assert.equal(refused.json.message, 'pods "p" is forbidden: error looking up service account sa-never/default: serviceaccount "default" not found');
  const waited = Date.now() - before;
  assert.ok(waited >= 900 && waited < 5000, `waited ${waited} ms`);
});

test("the account's image pull secrets and mountable-secret enforcement", async () => {
  await namespace('sa-secrets');
  assert.equal((await call('POST', '/api/v1/namespaces/sa-secrets/serviceaccounts', {
    metadata: { name: 'strict', annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } },
    secrets: [{ name: 'allowed' }],
    imagePullSecrets: [{ name: 'registry' }],
  })).status, 201);
  const pulled = await call('POST', '/api/v1/namespaces/sa-secrets/pods', pod('pulled', { serviceAccountName: 'strict' }));
  assert.equal(pulled.status, 201, pulled.text);
  assert.deepEqual(pulled.json.spec.imagePullSecrets, [{ name: 'registry' }]);
  const ok = await call('POST', '/api/v1/namespaces/sa-secrets/pods', pod('ok', { serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'allowed' } }] }));
  assert.equal(ok.status, 201, ok.text);
  const volume = await call('POST', '/api/v1/namespaces/sa-secrets/pods', pod('vol', { serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'other' } }] }));
  assert.equal(volume.status, 403);
  assert.equal(volume.json.message, 'pods "vol" is forbidden: volume with secret.secretName="other" is not allowed because service account strict does not reference that secret');
  const env = await call('POST', '/api/v1/namespaces/sa-secrets/pods', pod('env', {
    serviceAccountName: 'strict',
    containers: [{ name: 'c', image: 'nginx', env: [{ name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }] }],
  }));
  assert.equal(env.status, 403);
  assert.equal(env.json.message, 'pods "env" is forbidden: container c with envVar PASSWORD referencing secret.secretName="other" is not allowed because service account strict does not reference that secret');
});

test('kubectl: a pod in a new namespace gets default and the token volume, made by apiary controllers', async () => {
  const client = new RestClient({ ...server.admin });
  const controllers = startControllerManager({
    client,
    controllers: { namespace: false, systemNamespaces: false, resourceQuota: false, crdCleanup: false, namespaceDefaults: true },
    rootCaData: server.ca,
  });
  try {
    const kubeconfig = server.kubeconfigPath;
    assert.equal((await runKubectl(kubeconfig, ['create', 'namespace', 'sa-kubectl'])).code, 0);
    // Right after the namespace: admission waits for the controller's `default`.
    const run = await runKubectl(kubeconfig, ['run', 'web', '--image=nginx', '-n', 'sa-kubectl']);
    assert.equal(run.code, 0, run.stderr);
    const got = await runKubectl(kubeconfig, ['get', 'pod', 'web', '-n', 'sa-kubectl', '-o', 'jsonpath={.spec.serviceAccountName} {.spec.volumes[0].name} {.spec.containers[0].volumeMounts[0].mountPath}']);
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, /^default kube-api-access-[a-z0-9]{5} \/var\/run\/secrets\/kubernetes\.io\/serviceaccount$/);
    const missing = await runKubectl(kubeconfig, ['run', 'nope', '--image=nginx', '-n', 'sa-kubectl', '--overrides={"spec":{"serviceAccountName":"ghost"}}']);
    assert.notEqual(missing.code, 0);
    assert.equal(missing.stderr.trim(), 'Error from server (Forbidden): pods "nope" is forbidden: error looking up service account sa-kubectl/ghost: serviceaccount "ghost" not found');
  } finally {
    await controllers.stop();
    await client.close();
  }
});
