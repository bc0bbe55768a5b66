// kube-public/cluster-info as kubeadm publishes it, from `apiary serve`: the
// kubeconfig with the CA and the server URL, readable without credentials
// (curl with no credentials; kubectl always prompts for a user name on an
// https cluster without credentials, so it reads with the admin's) through the kubeadm:bootstrap-signer-clusterinfo
// Role and RoleBinding, and nothing else in kube-public.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { spawnApiary } from '../helpers/apiary-process.js';
import { runKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/wait.js';

const run = promisify(execFile);

test('cluster-info in kube-public: the CA and server, readable anonymously, as kubeadm publishes it', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-cluster-info-'));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const server = spawnApiary(['serve', '--secure-port', '0', '--data-dir', dataDir, '--log-level', 'silent'], { secure: true, urlTimeoutMs: 30_000 });
  t.after(() => server.stop('SIGKILL'));
  const url = await server.url;
  const admin = path.join(dataDir, 'kubeconfig');
  const caFile = path.join(dataDir, 'pki/ca.crt');
  const ca = fs.readFileSync(caFile, 'utf8');
  // The first server's cluster token, for other servers on the same store: its file is named, the secret is not printed.
  await until('cluster token line', async () => server.output().includes(`cluster token: ${path.join(dataDir, 'token')}`), 5000, 50);
  assert.ok(!server.output().includes(fs.readFileSync(path.join(dataDir, 'token'), 'utf8').trim()));
  await until('cluster-info', async () => (await runKubectl(admin, ['get', 'cm', 'cluster-info', '-n', 'kube-public', '-o', 'name'])).code === 0, 20_000, 100);

  // curl with no credentials, verifying the server with the CA.
  const curl = async (p: string): Promise<{ code: number; body: any }> => { // eslint-disable-line @typescript-eslint/no-explicit-any
    const { stdout } = await run('curl', ['-s', '--cacert', caFile, '-w', '\n%{http_code}', url + p]);
    const at = stdout.lastIndexOf('\n');
    return { code: Number(stdout.slice(at + 1)), body: JSON.parse(stdout.slice(0, at)) };
  };
  const got = await curl('/api/v1/namespaces/kube-public/configmaps/cluster-info');
  assert.equal(got.code, 200);
  const kubeconfig = got.body.data.kubeconfig as string;
  assert.deepEqual(parse(kubeconfig), {
    apiVersion: 'v1',
    clusters: [{ cluster: { 'certificate-authority-data': Buffer.from(ca).toString('base64'), server: url }, name: '' }],
    contexts: null,
    'current-context': '',
    kind: 'Config',
    preferences: {},
    users: null,
  });
  // Only that ConfigMap: listing kube-public or reading another object there is refused.
  const listed = await curl('/api/v1/namespaces/kube-public/configmaps');
  assert.equal(listed.code, 403);
  assert.equal(listed.body.message, 'configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "kube-public"');
  const other = await curl('/api/v1/namespaces/kube-public/configmaps/kube-root-ca.crt');
  assert.equal(other.code, 403);

  // The CA published there is enough to reach the server with verification (as kubeadm join's discovery does).
  const published = path.join(dataDir, 'published-ca.crt');
  fs.writeFileSync(published, Buffer.from((parse(kubeconfig) as { clusters: { cluster: Record<string, string> }[] }).clusters[0]!.cluster['certificate-authority-data']!, 'base64'));
  const { stdout: version } = await run('curl', ['-s', '--cacert', published, `${url}/version`]);
  assert.equal(JSON.parse(version).major, '1');
  const review = await run('curl', ['-s', '--cacert', published, '-X', 'POST', '-H', 'content-type: application/json', `${url}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
    '-d', '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}']);
  assert.equal(JSON.parse(review.stdout).code, 403, 'anonymous users are not system:basic-user');

  // kubeadm's Role and RoleBinding.
  const role = JSON.parse((await runKubectl(admin, ['get', 'role', 'kubeadm:bootstrap-signer-clusterinfo', '-n', 'kube-public', '-o', 'json'])).stdout);
  assert.deepEqual(role.rules, [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'] }]);
  const binding = JSON.parse((await runKubectl(admin, ['get', 'rolebinding', 'kubeadm:bootstrap-signer-clusterinfo', '-n', 'kube-public', '-o', 'json'])).stdout);
  assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'kubeadm:bootstrap-signer-clusterinfo' });
  assert.deepEqual(binding.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:anonymous' }]);
  assert.equal(await server.stop('SIGTERM'), 0);
});
