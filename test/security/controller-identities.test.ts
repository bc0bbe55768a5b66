// apiary's controllers act as their own identities with upstream's
// least-privilege roles, not as system:masters (issue 19): `apiary serve` with
// RBAC on and an audit log; the namespace controller still empties and
// finalizes a namespace, the service-account controller and the root-CA
// publisher fill a new one, the quota controller writes quota status, the
// pvc-protection controller releases a deleted claim, and the
// audit log shows each write made by that controller's service-account user;
// those identities are refused what their roles do not grant.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { spawnApiary } from '../helpers/apiary-process.js';
import { runKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/wait.js';

interface AuditEvent {
  verb: string;
  user: { username: string; groups: string[] };
  objectRef: { resource: string; namespace?: string; name?: string; subresource?: string };
  responseStatus: { code: number };
}

test('controllers run as their own service accounts with least privilege, and still do their work', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-controller-ids-'));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const auditLog = path.join(dataDir, 'audit.log');
  const server = spawnApiary(
    ['serve', '--secure-port', '0', '--data-dir', dataDir, '--log-level', 'silent', '--audit-log-path', auditLog, '--leader-elect', 'false'],
    { secure: true, urlTimeoutMs: 30_000 },
  );
  t.after(() => server.stop('SIGKILL'));
  await server.url;
  const admin = path.join(dataDir, 'kubeconfig');
  const kubectl = async (...args: string[]) => {
    const r = await runKubectl(admin, args);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };

  await kubectl('create', 'namespace', 'team-z');
  await until('default service account and kube-root-ca.crt', async () =>
    (await runKubectl(admin, ['get', 'sa/default', 'cm/kube-root-ca.crt', '-n', 'team-z', '-o', 'name'])).stdout.trim().split('\n').length === 2, 15_000, 100);
  await kubectl('create', 'configmap', 'settings', '-n', 'team-z', '--from-literal=a=b');
  await kubectl('create', 'secret', 'generic', 'password', '-n', 'team-z', '--from-literal=p=q');
  await kubectl('create', 'quota', 'q', '-n', 'team-z', '--hard=configmaps=10');
  // A claim gets the pvc-protection finalizer; the namespace's deletion waits for that controller to release it.
  const claim = await runKubectl(admin, ['create', '-f', '-'], {
    stdin: JSON.stringify({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'team-z' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }),
  });
  assert.equal(claim.code, 0, claim.stderr);
  await until('quota status', async () => (await runKubectl(admin, ['get', 'quota', 'q', '-n', 'team-z', '-o', 'jsonpath={.status.used.configmaps}'])).stdout === '2', 15_000, 100);

  // With RBAC on, the namespace controller (its own identity) still empties and removes the namespace.
  await kubectl('delete', 'namespace', 'team-z', '--wait=false');
  await until('namespace gone', async () => (await runKubectl(admin, ['get', 'namespace', 'team-z'])).code !== 0, 40_000, 200);

  // Who wrote what, from the audit log.
  await until('audit log flushed', async () => fs.readFileSync(auditLog, 'utf8').includes('"finalize"'), 5000, 100);
  const events = fs.readFileSync(auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as AuditEvent).filter((e) => e.objectRef.namespace === 'team-z' || e.objectRef.name === 'team-z');
  const writer = (match: (e: AuditEvent) => boolean): string[] => [...new Set(events.filter(match).map((e) => e.user.username))];
  const sa = (name: string): string => `system:serviceaccount:kube-system:${name}`;
  assert.deepEqual(writer((e) => e.verb === 'create' && e.objectRef.resource === 'serviceaccounts' && e.objectRef.name === undefined), [sa('service-account-controller')]);
  assert.deepEqual(writer((e) => e.verb === 'create' && e.objectRef.resource === 'configmaps' && e.user.username !== 'kubernetes-admin'), [sa('root-ca-cert-publisher')]);
  assert.deepEqual(writer((e) => e.objectRef.resource === 'resourcequotas' && e.objectRef.subresource === 'status'), [sa('resourcequota-controller')]);
  assert.deepEqual(writer((e) => e.objectRef.subresource === 'finalize' || e.verb === 'deletecollection'), [sa('namespace-controller')]);
  assert.deepEqual(writer((e) => e.verb === 'update' && e.objectRef.resource === 'persistentvolumeclaims'), [sa('pvc-protection-controller')]);
  const controllerGroups = events.find((e) => e.user.username === sa('namespace-controller'))!.user.groups;
  assert.deepEqual(controllerGroups, ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated']);
  assert.ok(!events.some((e) => e.user.groups.includes('system:masters') && e.user.username !== 'kubernetes-admin'), 'no controller write as system:masters');

  // Least privilege: what each role does not grant is refused.
  const canI = async (user: string, ...args: string[]): Promise<string> =>
    (await runKubectl(admin, ['auth', 'can-i', ...args, `--as=${user}`, '--as-group=system:serviceaccounts', '--as-group=system:serviceaccounts:kube-system'])).stdout.trim();
  assert.equal(await canI(sa('root-ca-cert-publisher'), 'get', 'secrets', '-n', 'default'), 'no');
  assert.equal(await canI(sa('root-ca-cert-publisher'), 'update', 'configmaps', '-n', 'default'), 'yes');
  assert.equal(await canI(sa('service-account-controller'), 'list', 'secrets', '-A'), 'no');
  assert.equal(await canI(sa('namespace-controller'), 'create', 'secrets', '-n', 'default'), 'no');
  assert.equal(await canI(sa('namespace-controller'), 'update', 'configmaps', '-n', 'default'), 'no');
  assert.equal(await canI(sa('namespace-controller'), 'deletecollection', 'configmaps', '-n', 'default'), 'yes');
  assert.equal(await canI(sa('resourcequota-controller'), 'get', 'secrets', '-n', 'default'), 'no');
  assert.equal(await canI('system:kube-controller-manager', 'create', 'configmaps', '-n', 'default'), 'no');
  const denied = await runKubectl(admin, ['get', 'secrets', '-n', 'default', `--as=${sa('root-ca-cert-publisher')}`]);
  assert.equal(
    denied.stderr.trim(),
    'Error from server (Forbidden): secrets is forbidden: User "system:serviceaccount:kube-system:root-ca-cert-publisher" cannot list resource "secrets" in API group "" in the namespace "default"',
  );
  assert.equal(await server.stop('SIGTERM'), 0);
});
