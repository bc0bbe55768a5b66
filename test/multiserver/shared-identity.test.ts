// One cluster, several servers (issue 19): two secure apiary servers on one
// real etcd share one identity. The first makes the CA and service-account
// keys and seals them in the store with the cluster token it keeps in
// DATA_DIR/token; the second, given that token, takes them: the same CA, a
// service-account token issued by one is accepted by the other, each one's
// admin certificate works on both. Without the token, or with a wrong one,
// the second refuses to start (a clear error, no second CA on disk), in
// process and from `apiary serve`.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { spawnApiary } from '../helpers/apiary-process.js';
import { secureRequest } from '../security/helpers.js';

let etcd: EtcdCluster;
const dirs: string[] = [];
const servers: TestServer[] = [];

function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-identity-'));
  dirs.push(dir);
  return dir;
}

async function start(dir: string, token?: string): Promise<TestServer> {
  const server = await startTestServer({
    storage: 'etcd',
    etcdServers: etcd.endpoints,
    dataDir: dir,
    security: token !== undefined ? { token } : {},
  });
  servers.push(server);
  return server;
}

before(async () => {
  etcd = await startEtcd();
});
after(async () => {
  await Promise.allSettled(servers.map((s) => s.stop()));
  await etcd?.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

test('two servers on one etcd: one CA, tokens and certificates accepted by both; no or a wrong token stops the second', async () => {
  const dirA = dataDir();
  const a = await start(dirA);
  const token = fs.readFileSync(path.join(dirA, 'token'), 'utf8').trim();
  assert.match(token, /^[0-9a-f]{48}$/);
  assert.equal(fs.statSync(path.join(dirA, 'token')).mode & 0o777, 0o600);

  // No token: refused before any key material is made.
  const dirNone = dataDir();
  await assert.rejects(start(dirNone), {
    name: 'ClusterIdentityError',
    message: "the store already holds a cluster identity made by another server: start this one with --token (the first server's DATA_DIR/token)",
  });
  assert.equal(fs.existsSync(path.join(dirNone, 'pki', 'ca.crt')), false, 'no second CA');
  // A wrong token: refused too.
  const dirWrong = dataDir();
  await assert.rejects(start(dirWrong, 'not-the-token'), {
    name: 'ClusterIdentityError',
    message: "wrong --token: it does not open the cluster identity held in the store (use the token from the first server's DATA_DIR/token)",
  });
  assert.equal(fs.existsSync(path.join(dirWrong, 'pki', 'ca.crt')), false, 'no second CA');

  const dirB = dataDir();
  const b = await start(dirB, token);
  assert.equal(b.admin.caData, a.admin.caData, 'the same CA');
  assert.equal(fs.readFileSync(path.join(dirB, 'pki', 'sa.key'), 'utf8'), fs.readFileSync(path.join(dirA, 'pki', 'sa.key'), 'utf8'));
  assert.notEqual(b.admin.certData, a.admin.certData, 'each server issues its own admin certificate');
  const ca = a.admin.caData!;

  // Each admin certificate works on both servers, verified with the one CA.
  for (const [who, creds] of [['a', a.admin], ['b', b.admin]] as const) {
    for (const target of [a, b]) {
      const res = await secureRequest(target.url, ca, 'GET', '/api/v1/namespaces', { cert: creds.certData!, key: creds.keyData! });
      assert.equal(res.status, 200, `${who}'s admin on ${target.url}: ${res.text}`);
    }
  }

  // A service-account token issued through A is accepted by B.
  const adminA = { cert: a.admin.certData!, key: a.admin.keyData! };
  assert.equal((await secureRequest(a.url, ca, 'POST', '/api/v1/namespaces', { ...adminA, body: { metadata: { name: 'shared' } } })).status, 201);
  assert.equal((await secureRequest(a.url, ca, 'POST', '/api/v1/namespaces/shared/serviceaccounts', { ...adminA, body: { metadata: { name: 'robot' } } })).status, 201);
  const issued = await secureRequest(a.url, ca, 'POST', '/api/v1/namespaces/shared/serviceaccounts/robot/token', {
    ...adminA,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
  });
  assert.equal(issued.status, 201, issued.text);
  const bearer = { authorization: `Bearer ${issued.json.status.token as string}` };
  const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
  for (const target of [a, b]) {
    const who = await secureRequest(target.url, ca, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { headers: bearer, body: review });
    assert.equal(who.status, 201, who.text);
    assert.equal(who.json.status.userInfo.username, 'system:serviceaccount:shared:robot');
  }

  // A restart of B keeps working from its own DATA_DIR/token.
  await b.stop();
  const again = await start(dirB);
  assert.equal(again.admin.caData, ca);

  // `apiary serve` with a wrong token: one clear line, exit 1.
  const cli = spawnApiary(
    ['serve', '--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(','), '--secure-port', '0', '--data-dir', dataDir(), '--token', 'wrong', '--log-level', 'silent'],
    { secure: true },
  );
  cli.url.catch(() => {});
  assert.equal(await cli.exited, 1);
  assert.match(cli.output(), /^apiary: wrong --token: it does not open the cluster identity held in the store/m);
  assert.doesNotMatch(cli.output(), /\n\s+at /, 'no stack trace');
});
