// Admission webhooks on a secure server: the AdmissionReview names the
// authenticated user, and the webhooks' audit annotations (prefixed with the
// webhook's name) and the mutation record land in the audit log's event.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/wait.js';
import { startSecureServer } from '../security/helpers.js';
import { configMapHook, startWebhookServer, webhookConfiguration } from '../helpers/webhook-server.js';

test('userInfo in the review; auditAnnotations and the mutation record in the audit log', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-wh-audit-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'audit.log');
  const hook = await startWebhookServer();
  t.after(() => hook.stop());
  const server = await startSecureServer({ auditLogPath: file });
  t.after(() => server.stop());
  hook.on('/audit', () => ({ allowed: true, auditAnnotations: { decision: 'looked and allowed' } }));
  const config = webhookConfiguration('MutatingWebhookConfiguration', 'audit', [configMapHook('audit.example.com', hook.url('/audit'), hook.caBundle)]);
  assert.equal((await runKubectl(server.kubeconfigPath, ['create', 'namespace', 'audited'])).code, 0);
  const created = await runKubectl(server.kubeconfigPath, ['create', '-f', '-'], { stdin: JSON.stringify(config) });
  assert.equal(created.code, 0, created.stderr);
  await until('the webhook to be called', async () => {
    await runKubectl(server.kubeconfigPath, ['create', 'configmap', 'probe', '-n', 'audited', '--dry-run=server']);
    return (hook.received.get('/audit') ?? []).length > 0;
  }, 5000);
  const out = await runKubectl(server.kubeconfigPath, ['create', 'configmap', 'audited', '-n', 'audited', '--from-literal=a=b']);
  assert.equal(out.code, 0, out.stderr);
  const review = hook.received.get('/audit')!.at(-1);
  assert.equal(review.request.userInfo.username, 'kubernetes-admin');
  assert.deepEqual(review.request.userInfo.groups, ['system:masters', 'system:authenticated']);
  assert.equal(review.request.options.fieldManager, 'kubectl-create');
  let event: Record<string, any> | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any -- checked field by field
  await until('the audit event', () => {
    const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '') : [];
    event = lines.map((l) => JSON.parse(l)).find((e) => e.objectRef?.name === 'audited' || (e.objectRef?.resource === 'configmaps' && e.responseStatus?.code === 201 && !e.requestURI.includes('dryRun')));
    return event !== undefined;
  }, 5000);
  assert.equal(event!.annotations['audit.example.com/decision'], 'looked and allowed');
  assert.deepEqual(JSON.parse(event!.annotations['mutation.webhook.admission.k8s.io/round_0_index_0']), {
    configuration: 'audit',
    webhook: 'audit.example.com',
    mutated: false,
  });
});
