// The certificate plugins through a secure server (RBAC on): approving and
// signing need `approve`/`sign` on the signer, and kube-apiserver-client
// requests for system:masters are refused. (cases/admission-plugins.ts
// compares the same answers with kube-apiserver's.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSecureServer, secureRequest } from '../security/helpers.js';
import { MASTERS_REQUEST, USER_REQUEST } from '../compat/differential/cases/admission-plugins.js';

const CSR = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const csr = (name: string, signerName: string, request: string) => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: { request, signerName, usages: ['client auth'] },
});

test('CertificateApproval, CertificateSigning and CertificateSubjectRestriction', async (t) => {
  const server = await startSecureServer();
  t.after(() => server.stop());
  const admin = { cert: server.admin.certData!, key: server.admin.keyData! };
  const asAdmin = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    secureRequest(server.url, server.ca, method, path, { ...admin, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
  const asAlice = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    secureRequest(server.url, server.ca, method, path, { headers: { authorization: 'Bearer alice-token', ...headers }, ...(body !== undefined ? { body } : {}) });

  const masters = await asAdmin('POST', CSR, csr('m', 'kubernetes.io/kube-apiserver-client', MASTERS_REQUEST));
  assert.equal(masters.status, 403, masters.text);
  assert.equal(
    masters.json.message,
    'certificatesigningrequests.certificates.k8s.io "m" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed',
  );
  assert.equal((await asAdmin('POST', CSR, csr('ok', 'kubernetes.io/kube-apiserver-client', USER_REQUEST))).status, 201);
  assert.equal((await asAdmin('POST', CSR, csr('a', 'example.com/a', USER_REQUEST))).status, 201);

  // alice may update the subresources, and approve only example.com/* signers.
  const role = await asAdmin('POST', `${RBAC}/clusterroles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'csr' },
    rules: [
      { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests', 'certificatesigningrequests/approval', 'certificatesigningrequests/status'], verbs: ['get', 'update', 'patch'] },
    ],
  });
  assert.equal(role.status, 201, role.text);
  await asAdmin('POST', `${RBAC}/clusterrolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'csr' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'csr' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
  });
  const approve = { status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'ok' }] } };
  const merge = { 'content-type': 'application/merge-patch+json' };
  let refused = await asAlice('PATCH', `${CSR}/a/approval`, approve, merge);
  for (let i = 0; refused.status !== 403 || !refused.json.message.includes('signerName'); i++) {
    assert.ok(i < 100, refused.text); // the binding reaches the authorizer
    await new Promise((res) => setTimeout(res, 20));
    refused = await asAlice('PATCH', `${CSR}/a/approval`, approve, merge);
  }
  assert.equal(refused.json.message, 'certificatesigningrequests.certificates.k8s.io "a" is forbidden: user not permitted to approve requests with signerName "example.com/a"');
  assert.equal((await asAdmin('GET', `${CSR}/a`)).json.status.conditions, undefined, 'nothing stored');

  const grant = await asAdmin('PATCH', `${RBAC}/clusterroles/csr`, [
    { op: 'add', path: '/rules/-', value: { apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['example.com/*'], verbs: ['approve'] } },
  ], { 'content-type': 'application/json-patch+json' });
  assert.equal(grant.status, 200, grant.text);
  let ok = await asAlice('PATCH', `${CSR}/a/approval`, approve, merge);
  for (let i = 0; ok.status !== 200; i++) {
    assert.ok(i < 100, ok.text);
    await new Promise((res) => setTimeout(res, 20));
    ok = await asAlice('PATCH', `${CSR}/a/approval`, approve, merge);
  }
  assert.equal(ok.json.status.conditions[0].type, 'Approved');

  const sign = await asAlice('PATCH', `${CSR}/a/status`, [{ op: 'add', path: '/status/conditions/-', value: { type: 'Failed', status: 'True', reason: 'X', message: 'y' } }], {
    'content-type': 'application/json-patch+json',
  });
  assert.equal(sign.status, 403, sign.text);
  assert.equal(sign.json.message, 'certificatesigningrequests.certificates.k8s.io "a" is forbidden: user not permitted to sign requests with signerName "example.com/a"');
  const admins = await asAdmin('PATCH', `${CSR}/a/status`, [{ op: 'add', path: '/status/conditions/-', value: { type: 'Failed', status: 'True', reason: 'X', message: 'y' } }], {
    'content-type': 'application/json-patch+json',
  });
  assert.equal(admins.status, 200, 'system:masters may sign any signer');
});
