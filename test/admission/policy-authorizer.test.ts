// ValidatingAdmissionPolicy's `authorizer` variable against apiary's RBAC (a
// secure server): requestResource and path checks for the requester, a
// service account's check through serviceAccount(); as upstream, a
// messageExpression runs without the authorizer, so one that reads a
// variable built on it falls back to "failed expression: …" (kube-apiserver
// 1.32.4 answers the same steps with the same texts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { until } from '../helpers/wait.js';
import { secureRequest, startSecureServer } from '../security/helpers.js';

const AR = '/apis/admissionregistration.k8s.io/v1';

test('authorizer checks in a policy follow RBAC', async (t) => {
  const server = await startSecureServer();
  t.after(() => server.stop());
  const admin = { cert: server.admin.certData!, key: server.admin.keyData! };
  const send = (method: string, p: string, body?: unknown, headers?: Record<string, string>) =>
    secureRequest(server.url, server.ca, method, p, { ...admin, ...(body !== undefined ? { body } : {}), ...(headers !== undefined ? { headers } : {}) });

  assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: 'authz', labels: { 'vap-authz': 'on' } } })).status, 201);
  const policy = await send('POST', `${AR}/validatingadmissionpolicies`, {
    metadata: { name: 'authz' },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
      variables: [{ name: 'sa', expression: "authorizer.serviceAccount('authz', 'nobody').group('').resource('secrets').namespace('authz').check('list')" }],
      validations: [
        { expression: "authorizer.requestResource.check('create').allowed() && authorizer.path('/healthz').check('get').allowed()", message: 'requester may not' },
        { expression: 'variables.sa.allowed()', messageExpression: "'sa: ' + variables.sa.reason()" },
      ],
    },
  });
  assert.equal(policy.status, 201, policy.text);
  const bad = await send('POST', `${AR}/validatingadmissionpolicies`, {
    metadata: { name: 'authz-message' },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
      validations: [{ expression: 'true', messageExpression: "authorizer.path('/x').check('get').reason()" }],
    },
  });
  assert.equal(bad.status, 422);
  assert.equal(
    bad.json.message,
    `ValidatingAdmissionPolicy.admissionregistration.k8s.io "authz-message" is invalid: spec.validations[0].messageExpression: Invalid value: "authorizer.path('/x').check('get').reason()": compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')\n | authorizer.path('/x').check('get').reason()\n | ^`,
  );
  assert.equal(
    (await send('POST', `${AR}/validatingadmissionpolicybindings`, {
      metadata: { name: 'authz' },
      spec: { policyName: 'authz', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { 'vap-authz': 'on' } } } },
    })).status,
    201,
  );
  const cm = (name: string) => ({ metadata: { name } });
  let denied = await send('POST', '/api/v1/namespaces/authz/configmaps?dryRun=All', cm('a'));
  await until('the binding denies', async () => {
    denied = await send('POST', '/api/v1/namespaces/authz/configmaps?dryRun=All', cm('a'));
    return denied.status === 422;
  });
  assert.equal(
    denied.json.message,
    "configmaps \"a\" is forbidden: ValidatingAdmissionPolicy 'authz' with binding 'authz' denied request: failed expression: variables.sa.allowed()",
  );
  // the service account may list secrets once bound to admin in the namespace
  const rb = await send('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/authz/rolebindings', {
    metadata: { name: 'sa-admin' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
    subjects: [{ kind: 'ServiceAccount', name: 'nobody', namespace: 'authz' }],
  });
  assert.equal(rb.status, 201, rb.text);
  await until('the policy admits', async () => (await send('POST', '/api/v1/namespaces/authz/configmaps', cm('b'))).status === 201);
  // and the service account itself, impersonated, passes the requester's checks too
  const asSa = await send('POST', '/api/v1/namespaces/authz/configmaps', cm('c'), { 'Impersonate-User': 'system:serviceaccount:authz:nobody' });
  assert.equal(asSa.status, 201, asSa.text);
});
