// Admission's audit annotations in the audit log (--audit-log-path): a
// ValidatingAdmissionPolicy's auditAnnotations (keyed policy/key) and the
// validation_failure annotation of a binding with the Audit action, and
// PodSecurity's enforce-policy and audit-violations, on the request's event.
// `request.userInfo` is the authenticated user.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { until } from '../helpers/wait.js';
import { secureRequest, startSecureServer } from '../security/helpers.js';

const AR = '/apis/admissionregistration.k8s.io/v1';

test('policy and PodSecurity audit annotations reach the audit event', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-admission-audit-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'audit.log');
  const server = await startSecureServer({ auditLogPath: file });
  t.after(() => server.stop());
  const admin = { cert: server.admin.certData!, key: server.admin.keyData! };
  const send = (method: string, p: string, body?: unknown) => secureRequest(server.url, server.ca, method, p, { ...admin, ...(body !== undefined ? { body } : {}) });

  assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: 'audited', labels: { 'pod-security.kubernetes.io/audit': 'restricted' } } })).status, 201);
  assert.equal(
    (await send('POST', `${AR}/validatingadmissionpolicies`, {
      metadata: { name: 'keys' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
        validations: [{ expression: 'size(object.data) <= 1', messageExpression: "'too many keys: ' + string(size(object.data))" }],
        auditAnnotations: [{ key: 'who', valueExpression: "request.userInfo.username + ' made ' + object.metadata.name" }],
      },
    })).status,
    201,
  );
  assert.equal((await send('POST', `${AR}/validatingadmissionpolicybindings`, { metadata: { name: 'keys-audit' }, spec: { policyName: 'keys', validationActions: ['Audit'] } })).status, 201);
  // the binding is in effect once a violating create carries the annotation
  let events: Record<string, any>[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any -- checked field by field
  const read = (): Record<string, any>[] => // eslint-disable-line @typescript-eslint/no-explicit-any
    fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l)) : [];
  let n = 0;
  await until('the Audit binding annotates', async () => {
    const r = await send('POST', '/api/v1/namespaces/audited/configmaps', { metadata: { name: `cm${n++}` }, data: { a: '1', b: '2' } });
    assert.equal(r.status, 201, r.text);
    await new Promise((res) => setTimeout(res, 50));
    events = read();
    return events.some((e) => e.annotations?.['validation.policy.admission.k8s.io/validation_failure'] !== undefined);
  }, 10_000, 100);
  const cm = events.find((e) => e.annotations?.['validation.policy.admission.k8s.io/validation_failure'] !== undefined)!;
  const name = cm.objectRef.name ?? JSON.parse(cm.annotations['validation.policy.admission.k8s.io/validation_failure'])[0].message;
  assert.deepEqual(JSON.parse(cm.annotations['validation.policy.admission.k8s.io/validation_failure']), [
    { message: 'too many keys: 2', policy: 'keys', binding: 'keys-audit', expressionIndex: 0, validationActions: ['Audit'] },
  ]);
  assert.match(cm.annotations['keys/who'], /^kubernetes-admin made cm\d+$/, String(name));

  // the ServiceAccount admission plugin wants the namespace's default service account (this test server runs no controller making it)
  const sa = await send('POST', '/api/v1/namespaces/audited/serviceaccounts', { metadata: { name: 'default' } });
  assert.ok(sa.status === 201 || sa.status === 409, sa.text);
  const pod = await send('POST', '/api/v1/namespaces/audited/pods', { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  assert.equal(pod.status, 201, pod.text);
  await until('the pod event', () => {
    events = read();
    return events.some((e) => e.objectRef.resource === 'pods');
  }, 5000);
  const podEvent = events.find((e) => e.objectRef.resource === 'pods')!;
  assert.equal(podEvent.annotations['pod-security.kubernetes.io/enforce-policy'], 'privileged:latest');
  assert.equal(
    podEvent.annotations['pod-security.kubernetes.io/audit-violations'],
    'would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
  );
});
