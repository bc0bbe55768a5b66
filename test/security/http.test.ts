// Authentication and authorization at the HTTP level, bodies compared with
// kube-apiserver 1.32's: bad credentials, foreign certificates, client
// certificates, anonymous access, watches scoped by RBAC, access reviews,
// RBAC changes taking effect, aggregation, token reviews, OIDC discovery.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Agent, request as undiciRequest } from 'undici';
import { issueClientCertificate } from '../../src/auth/pki/pki.js';
import { ensureClusterPki } from '../../src/auth/pki/pki.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { until } from '../helpers/wait.js';
import { secureRequest, startSecureServer } from './helpers.js';

let server: Awaited<ReturnType<typeof startSecureServer>>;
let adminCert: { cert: string; key: string };

const as = (token: string): { headers: Record<string, string> } => ({ headers: { authorization: `Bearer ${token}` } });
const call = (method: string, p: string, options: Parameters<typeof secureRequest>[4] = {}) => secureRequest(server.url, server.ca, method, p, options);
const asAdmin = (method: string, p: string, body?: unknown) => call(method, p, { ...adminCert, ...(body !== undefined ? { body } : {}) });

before(async () => {
  server = await startSecureServer();
  adminCert = { cert: server.admin.certData!, key: server.admin.keyData! };
  for (const ns of ['team-a', 'team-b']) assert.equal((await asAdmin('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
  const binding = {
    metadata: { name: 'alice-edit', namespace: 'team-a' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
    subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
  };
  assert.equal((await asAdmin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings', binding)).status, 201);
});
after(() => server.stop());

const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

test('a wrong token or a certificate from another CA is 401 with upstream body, never anonymous', async () => {
  const bad = await call('GET', '/api/v1/namespaces', as('nope'));
  assert.equal(bad.status, 401);
  assert.deepEqual(bad.json, UNAUTHORIZED);
  // Even where anonymous users may go.
  assert.equal((await call('GET', '/healthz', as('nope'))).status, 401);

  const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-other-ca-'));
  try {
    const other = await ensureClusterPki(otherDir);
    const foreign = await call('GET', '/api/v1/namespaces', { cert: other.adminCertPem, key: other.adminKeyPem });
    assert.equal(foreign.status, 401);
    assert.deepEqual(foreign.json, UNAUTHORIZED);
  } finally {
    fs.rmSync(otherDir, { recursive: true, force: true });
  }
});

test('a client certificate from the cluster CA: CN is the user, O the groups', async () => {
  const pki = { certPem: fs.readFileSync(path.join(server.dataDir, 'pki/ca.crt'), 'utf8'), keyPem: fs.readFileSync(path.join(server.dataDir, 'pki/ca.key'), 'utf8') };
  const carol = await issueClientCertificate(pki, 'carol', ['qa', 'ops']);
  const review = await call('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { cert: carol.certPem, key: carol.keyPem, body: {} });
  assert.equal(review.status, 201, review.text);
  assert.deepEqual(review.json.status.userInfo, { username: 'carol', groups: ['qa', 'ops', 'system:authenticated'] });
  const denied = await call('GET', '/api/v1/namespaces/team-a/configmaps', { cert: carol.certPem, key: carol.keyPem });
  assert.equal(denied.json.message, 'configmaps is forbidden: User "carol" cannot list resource "configmaps" in API group "" in the namespace "team-a"');
});

test('anonymous requests reach health and version only', async () => {
  const health = await call('GET', '/healthz');
  assert.equal(health.status, 200);
  assert.equal(health.text, 'ok');
  assert.equal((await call('GET', '/version')).status, 200);
  const api = await call('GET', '/api');
  assert.equal(api.status, 403);
  assert.deepEqual(api.json, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'forbidden: User "system:anonymous" cannot get path "/api"',
    reason: 'Forbidden',
    details: {},
    code: 403,
  });
  const ns = await call('GET', '/api/v1/namespaces');
  assert.equal(ns.json.message, 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
  assert.deepEqual(ns.json.details, { kind: 'namespaces' });
  const named = await call('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin');
  assert.equal(named.json.message, 'clusterroles.rbac.authorization.k8s.io "admin" is forbidden: User "system:anonymous" cannot get resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope');
  assert.deepEqual(named.json.details, { name: 'admin', group: 'rbac.authorization.k8s.io', kind: 'clusterroles' });
});

type WatchEvent = { type: string; object: { metadata: { namespace?: string; name: string } } };

/** Reads a watch until `last` names an event's object (or the watch ends), returning the events. */
async function watchUntil(p: string, token: string, last?: string): Promise<{ status: number; events: WatchEvent[] }> {
  const agent = new Agent({ connect: { ca: server.ca } });
  try {
    const res = await undiciRequest(server.url + p, { headers: { authorization: `Bearer ${token}` }, dispatcher: agent });
    if (res.statusCode !== 200) {
      await res.body.text();
      return { status: res.statusCode, events: [] };
    }
    const events: WatchEvent[] = [];
    let buffered = '';
    for await (const chunk of res.body) {
      buffered += chunk.toString();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line === '') continue;
        const e = JSON.parse(line) as WatchEvent;
        events.push(e);
        if (last !== undefined && e.object.metadata.name === last) {
          res.body.destroy();
          return { status: 200, events };
        }
      }
    }
    return { status: 200, events };
  } finally {
    await agent.close();
  }
}

test('watches: across namespaces refused for a namespace-bound user; a namespaced watch delivers nothing of other namespaces under churn', async () => {
  const all = await watchUntil('/api/v1/configmaps?watch=1&timeoutSeconds=1', 'alice-token');
  assert.equal(all.status, 403);
  const watching = watchUntil('/api/v1/namespaces/team-a/configmaps?watch=1&timeoutSeconds=30', 'alice-token', 'a-end');
  await new Promise((r) => setTimeout(r, 300));
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < 20; i++) {
    writes.push(asAdmin('POST', '/api/v1/namespaces/team-b/configmaps', { metadata: { name: `b-${i}` } }));
    if (i % 5 === 0) writes.push(asAdmin('POST', '/api/v1/namespaces/team-a/configmaps', { metadata: { name: `a-${i}` } }));
  }
  await Promise.all(writes);
  // Written after all the churn: the watch has seen everything before it once this arrives.
  await asAdmin('POST', '/api/v1/namespaces/team-a/configmaps', { metadata: { name: 'a-end' } });
  const { status, events } = await watching;
  assert.equal(status, 200);
  const names = events.map((e) => `${e.object.metadata.namespace}/${e.object.metadata.name}`);
  for (const i of [0, 5, 10, 15]) assert.ok(names.includes(`team-a/a-${i}`), `missing team-a/a-${i} in ${names.join(',')}`);
  assert.ok(events.every((e) => e.object.metadata.namespace === 'team-a'), names.join(','));
});

test('access reviews say why, RBAC changes take effect at once, a binding to a missing role grants nothing', async () => {
  const ssar = (ns: string) => ({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: { resourceAttributes: { namespace: ns, verb: 'list', resource: 'configmaps' } },
  });
  const allowed = await call('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { ...as('alice-token'), body: ssar('team-a') });
  assert.equal(allowed.status, 201);
  assert.deepEqual(allowed.json.status, { allowed: true, reason: 'RBAC: allowed by RoleBinding "alice-edit/team-a" of ClusterRole "edit" to User "alice"' });
  const sar = await asAdmin('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    spec: { user: 'alice', resourceAttributes: { namespace: 'team-b', verb: 'list', resource: 'configmaps' } },
  });
  assert.deepEqual(sar.json.status, { allowed: false });
  const invalid = await asAdmin('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { spec: { resourceAttributes: { verb: 'get' } } });
  assert.equal(invalid.status, 422);
  assert.match(invalid.json.message, /spec.user: Invalid value: "": at least one of user or group must be specified/);

  // bob (groups dev, qa) gets team-b through his group, at once.
  assert.equal((await call('GET', '/api/v1/namespaces/team-b/configmaps', as('bob-token'))).status, 403);
  const groupBinding = {
    metadata: { name: 'dev-view', namespace: 'team-b' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'Group', name: 'dev' }],
  };
  const created = await asAdmin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team-b/rolebindings', groupBinding);
  assert.equal(created.json.subjects[0].apiGroup, 'rbac.authorization.k8s.io', 'defaulted');
  await until('rbac change', async () => (await call('GET', '/api/v1/namespaces/team-b/configmaps', as('bob-token'))).status === 200, 2000);
  assert.equal((await call('POST', '/api/v1/namespaces/team-b/configmaps', { ...as('bob-token'), body: { metadata: { name: 'z' } } })).status, 403, 'view cannot create');

  const missing = {
    metadata: { name: 'alice-missing', namespace: 'team-b' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'missing' },
    subjects: [{ kind: 'User', name: 'alice' }],
  };
  assert.equal((await asAdmin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team-b/rolebindings', missing)).status, 201);
  await until('rbac change', async () => /RBAC:/.test((await call('GET', '/api/v1/namespaces/team-b/configmaps', as('alice-token'))).text), 2000);
  const refused = await call('GET', '/api/v1/namespaces/team-b/configmaps', as('alice-token'));
  assert.equal(
    refused.json.message,
    'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "team-b": RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found',
  );
});

test('RBAC validation as upstream', async () => {
  const bad = await asAdmin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings', {
    metadata: { name: 'bad' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Nope', name: 'x' },
    subjects: [{ kind: 'Robot', name: 'r' }],
  });
  assert.equal(bad.status, 422);
  assert.match(bad.json.message, /roleRef.kind: Unsupported value: "Nope": supported values: "Role", "ClusterRole"/);
  assert.match(bad.json.message, /subjects\[0\].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"/);
  const rule = await asAdmin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles', { metadata: { name: 'r' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] });
  assert.equal(rule.status, 422);
  assert.match(rule.json.message, /rules\[0\].nonResourceURLs: Invalid value: \[\]string\{"\/x"\}: namespaced rules cannot apply to non-resource URLs/);
  const current = await asAdmin('GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings/alice-edit');
  const changed = await asAdmin('PUT', '/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings/alice-edit', { ...current.json, roleRef: { ...current.json.roleRef, name: 'admin' } });
  assert.equal(changed.status, 422);
  assert.equal(
    changed.json.message,
    'RoleBinding.rbac.authorization.k8s.io "alice-edit" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"admin"}: cannot change roleRef',
  );
});

test('ClusterRole aggregation: a role labelled aggregate-to-view adds its rules to view, edit and admin', async () => {
  const role = {
    metadata: { name: 'widgets-reader', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
    rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list'] }],
  };
  assert.equal((await asAdmin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', role)).status, 201);
  for (const name of ['view', 'edit', 'admin']) {
    await until('rbac change', async () => {
      const got = await asAdmin('GET', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`);
      return (got.json.rules as { resources?: string[] }[]).some((r) => r.resources?.includes('widgets'));
    }, 3000);
  }
});

test('TokenReview and OIDC discovery for service-account tokens', async () => {
  assert.equal((await asAdmin('POST', '/api/v1/namespaces/team-a/serviceaccounts', { metadata: { name: 'bot' } })).status, 201);
  const tr = await asAdmin('POST', '/api/v1/namespaces/team-a/serviceaccounts/bot/token', { spec: { expirationSeconds: 600 } });
  assert.equal(tr.status, 201, tr.text);
  const token = tr.json.status.token as string;
  const review = await asAdmin('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token } });
  assert.equal(review.json.status.authenticated, true);
  assert.equal(review.json.status.user.username, 'system:serviceaccount:team-a:bot');
  const badReview = await asAdmin('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token: 'x' } });
  assert.equal(badReview.json.status.authenticated, undefined);
  const tooShort = await asAdmin('POST', '/api/v1/namespaces/team-a/serviceaccounts/bot/token', { spec: { expirationSeconds: 60 } });
  assert.equal(tooShort.status, 422);
  const noSa = await asAdmin('POST', '/api/v1/namespaces/team-a/serviceaccounts/ghost/token', { spec: {} });
  assert.equal(noSa.status, 404);
  assert.equal(noSa.json.message, 'serviceaccounts "ghost" not found');

  const config = await call('GET', '/.well-known/openid-configuration', as(token));
  assert.equal(config.status, 200);
  assert.equal(config.json.issuer, 'https://kubernetes.default.svc.cluster.local');
  const jwks = await call('GET', '/openid/v1/jwks', as(token));
  assert.equal(jwks.json.keys[0].alg, 'ES256');
  assert.equal((await call('GET', '/openid/v1/jwks')).status, 403, 'not for anonymous users');
});
