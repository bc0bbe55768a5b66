// --audit-log-path: one audit.k8s.io/v1 event per write (refused ones too),
// naming who asked, as whom, what and the answer; reads are not logged.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { until } from '../helpers/wait.js';
import { secureRequest, startSecureServer } from './helpers.js';

test('the audit log records writes with user, impersonated user, object and code', async (t) => {
  const dir = fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'apiary-audit-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'audit.log');
  const server = await startSecureServer({ auditLogPath: file });
  t.after(() => server.stop());
  const admin = { cert: server.admin.certData!, key: server.admin.keyData! };
  await secureRequest(server.url, server.ca, 'POST', '/api/v1/namespaces', { ...admin, body: { metadata: { name: 'team-a' } } });
  await secureRequest(server.url, server.ca, 'GET', '/api/v1/namespaces/team-a', admin);
  await secureRequest(server.url, server.ca, 'POST', '/api/v1/namespaces/team-a/configmaps', {
    ...admin,
    headers: { 'Impersonate-User': 'alice' },
    body: { metadata: { name: 'x' } },
  });
  let events: Record<string, any>[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any -- checked field by field
  await until('audit events', () => {
    events = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l)) : [];
    return events.length >= 2;
  }, 5000);
  const userWrites = events.filter((e) => e.objectRef.resource !== 'clusterroles' && e.objectRef.resource !== 'clusterrolebindings');
  assert.equal(userWrites.length, 2, JSON.stringify(events));
  const [ns, cm] = userWrites;
  assert.equal(ns!.kind, 'Event');
  assert.equal(ns!.apiVersion, 'audit.k8s.io/v1');
  assert.equal(ns!.level, 'Metadata');
  assert.equal(ns!.verb, 'create');
  assert.deepEqual(ns!.user, { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] });
  assert.deepEqual(ns!.objectRef, { resource: 'namespaces', apiVersion: 'v1' });
  assert.deepEqual(ns!.responseStatus, { metadata: {}, code: 201 });
  assert.equal(cm!.impersonatedUser.username, 'alice');
  assert.deepEqual(cm!.objectRef, { resource: 'configmaps', namespace: 'team-a', apiVersion: 'v1' });
  assert.equal(cm!.responseStatus.code, 403);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
});
