// Request-header authentication on apiary's side, and what it publishes for
// extension servers: with no --requestheader-* or --proxy-client-* flags,
// apiary makes kubeadm's front-proxy CA and client certificate in its PKI
// folder, believes X-Remote-* headers only from a client presenting that
// certificate (CN front-proxy-client), and publishes
// kube-system/extension-apiserver-authentication.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';
import { issueClientCertificate } from '../../src/auth/pki/pki.js';

let server: TestServer;
let pkiDir: string;

function whoAmI(headers: Record<string, string | string[]>, tls: { cert?: string; key?: string } = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${server.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
      { method: 'POST', ca: server.admin.caData, ...tls, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }));
  });
}

const frontProxy = (): { cert: string; key: string } => ({
  cert: fs.readFileSync(path.join(pkiDir, 'front-proxy-client.crt'), 'utf8'),
  key: fs.readFileSync(path.join(pkiDir, 'front-proxy-client.key'), 'utf8'),
});

before(async () => {
  server = await startTestServer({ security: { tlsTermination: 'inline' } });
  pkiDir = path.join(server.dataDir, 'pki');
});
after(() => server?.stop());

test('the front proxy names the user in X-Remote-* headers', async () => {
  const { status, body } = await whoAmI({ 'x-remote-user': 'alice', 'x-remote-group': ['devs', 'ops'], 'x-remote-extra-scopes': ['a', 'b'], 'x-remote-extra-acme.com%2Fteam': 'x' }, frontProxy());
  assert.equal(status, 201, JSON.stringify(body));
  assert.deepEqual(body.status.userInfo, { username: 'alice', groups: ['devs', 'ops', 'system:authenticated'], extra: { scopes: ['a', 'b'], 'acme.com/team': ['x'] } });
});

test('X-Remote-* headers from any other client are ignored', async () => {
  const admin = { cert: server.admin.certData!, key: server.admin.keyData! };
  const { status, body } = await whoAmI({ 'x-remote-user': 'mallory', 'x-remote-group': 'system:masters' }, admin);
  assert.equal(status, 201);
  assert.equal(body.status.userInfo.username, 'kubernetes-admin');
  const anonymous = await whoAmI({ 'x-remote-user': 'mallory', 'x-remote-group': 'system:masters' });
  // Anonymous (refused or answered as system:anonymous, as RBAC decides), never mallory.
  if (anonymous.status === 201) assert.equal(anonymous.body.status.userInfo.username, 'system:anonymous');
  else assert.equal(anonymous.status, 403);
});

test('a certificate of the front-proxy CA with another name, or without a user header, is refused', async () => {
  const ca = { certPem: fs.readFileSync(path.join(pkiDir, 'front-proxy-ca.crt'), 'utf8'), keyPem: fs.readFileSync(path.join(pkiDir, 'front-proxy-ca.key'), 'utf8') };
  const other = await issueClientCertificate(ca, 'not-the-proxy', ['system:masters']);
  const wrongName = await whoAmI({ 'x-remote-user': 'alice' }, { cert: other.certPem, key: other.keyPem });
  assert.equal(wrongName.status, 401);
  // Nor is such a certificate a user of its own (the front-proxy CA is not a client CA).
  const asItself = await whoAmI({}, { cert: other.certPem, key: other.keyPem });
  assert.equal(asItself.status, 401);
  const noUser = await whoAmI({ 'x-remote-group': 'devs' }, frontProxy());
  assert.equal(noUser.status, 401);
});

test('kube-system/extension-apiserver-authentication is published', async () => {
  const configMaps = server.registry.storeFor('', 'configmaps')!;
  const namespaces = server.registry.storeFor('', 'namespaces')!;
  await namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } } as never, {});
  let data: Record<string, string> = {};
  await until('the ConfigMap', async () => {
    try {
      data = ((await configMaps.get('kube-system', 'extension-apiserver-authentication', {})) as { data?: Record<string, string> }).data ?? {};
      return true;
    } catch {
      return false;
    }
  }, 15_000, 100);
  assert.equal(data['client-ca-file'], server.admin.caData);
  assert.equal(data['requestheader-client-ca-file'], fs.readFileSync(path.join(pkiDir, 'front-proxy-ca.crt'), 'utf8'));
  assert.equal(data['requestheader-allowed-names'], '["front-proxy-client"]');
  assert.equal(data['requestheader-username-headers'], '["X-Remote-User"]');
  assert.equal(data['requestheader-group-headers'], '["X-Remote-Group"]');
  assert.equal(data['requestheader-extra-headers-prefix'], '["X-Remote-Extra-"]');
});
