// The bootstrap policy reconciled on start as kube-apiserver does it
// (rbac.authorization.kubernetes.io/autoupdate): a changed bootstrap role or
// binding annotated "true" gets back the rules and subjects it lost (what was
// added stays); one annotated "false" is left as the operator made it; a
// deleted one is made again.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { secureRequest } from './helpers.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

test('bootstrap roles and bindings are reconciled on restart unless autoupdate is "false"', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-reconcile-'));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  let server: TestServer = await startTestServer({ dataDir, security: {} });
  t.after(() => server.stop());
  const call = (method: string, p: string, body?: unknown) =>
    secureRequest(server.url, server.admin.caData!, method, p, { cert: server.admin.certData!, key: server.admin.keyData!, ...(body !== undefined ? { body } : {}) });
  const get = async (p: string) => (await call('GET', p)).json;

  const originalBasic = await get(`${RBAC}/clusterroles/system:basic-user`);
  const originalDiscovery = await get(`${RBAC}/clusterroles/system:discovery`);
  // autoupdate "true": rules cut down to one the user adds, and a label of the user's.
  const basic = structuredClone(originalBasic);
  basic.rules = [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }];
  basic.metadata.labels['team'] = 'ops';
  assert.equal((await call('PUT', `${RBAC}/clusterroles/system:basic-user`, basic)).status, 200);
  // autoupdate "false": the operator's version stays.
  const discovery = structuredClone(originalDiscovery);
  discovery.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate'] = 'false';
  discovery.rules = [{ verbs: ['get'], nonResourceURLs: ['/version'] }];
  assert.equal((await call('PUT', `${RBAC}/clusterroles/system:discovery`, discovery)).status, 200);
  // A binding that lost a subject, and a role deleted outright.
  const viewer = await get(`${RBAC}/clusterrolebindings/system:public-info-viewer`);
  viewer.subjects = viewer.subjects.filter((s: { name: string }) => s.name !== 'system:unauthenticated');
  assert.equal((await call('PUT', `${RBAC}/clusterrolebindings/system:public-info-viewer`, viewer)).status, 200);
  assert.equal((await call('DELETE', `${RBAC}/clusterroles/system:controller:namespace-controller`)).status, 200);
  // Anonymous users can no longer read /version.
  assert.equal((await secureRequest(server.url, server.admin.caData!, 'GET', '/version')).status, 403);

  await server.stop();
  server = await startTestServer({ dataDir, security: {} });

  const reconciled = await get(`${RBAC}/clusterroles/system:basic-user`);
  // The user's rule stays; each lost permission comes back as one broken-down rule.
  assert.deepEqual(reconciled.rules, [
    { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] },
    { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews'] },
    { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectrulesreviews'] },
    { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
  ]);
  assert.equal(reconciled.metadata.labels['team'], 'ops');
  assert.equal(reconciled.metadata.labels['kubernetes.io/bootstrapping'], 'rbac-defaults');
  assert.deepEqual((await get(`${RBAC}/clusterroles/system:discovery`)).rules, discovery.rules, 'autoupdate "false" is left alone');
  const subjects = (await get(`${RBAC}/clusterrolebindings/system:public-info-viewer`)).subjects.map((s: { name: string }) => s.name);
  assert.deepEqual(subjects, ['system:authenticated', 'system:unauthenticated']);
  assert.equal((await secureRequest(server.url, server.admin.caData!, 'GET', '/version')).status, 200);
  assert.equal((await call('GET', `${RBAC}/clusterroles/system:controller:namespace-controller`)).status, 200);
});
