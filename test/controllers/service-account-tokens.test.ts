// The legacy service account token Secrets (issue 33): the tokens controller,
// a client of a real apiary server as `apiary serve` runs it, fills a
// kubernetes.io/service-account-token Secret with token, ca.crt and namespace
// and the account's uid, and deletes it when the account goes (or was never there).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { RestClient } from '../../src/client/index.js';
import { type RunningControllerManager, startControllerManager } from '../../src/controllers/manager.js';
import type { LegacyTokenClaims } from '../../src/controllers/service-account-tokens.js';
import { request } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
let server: TestServer;
let client: RestClient;
let controllers: RunningControllerManager;
const signed: LegacyTokenClaims[] = [];

before(async () => {
  server = await startTestServer();
  client = new RestClient({ server: server.url });
  controllers = startControllerManager({
    client,
    controllers: { namespace: false, systemNamespaces: false, resourceQuota: false, crdCleanup: false, pvcProtection: false, garbageCollector: false },
    rootCaData: CA,
    // A stand-in signer: what is signed is the API server's business; the controller only asks.
    signLegacyToken: async (claims) => {
      signed.push(claims);
      return `token-for-${claims.namespace}-${claims.serviceAccountName}-${claims.secretName}`;
    },
  });
  assert.equal((await request(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'tok' } } })).status, 201);
});
after(async () => {
  await controllers.stop();
  await client.close();
  await server.stop();
});

const SECRETS = '/api/v1/namespaces/tok/secrets';
const tokenSecret = (name: string, account: string) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, annotations: { 'kubernetes.io/service-account.name': account } },
  type: 'kubernetes.io/service-account-token',
});
const b64 = (s: string) => Buffer.from(s).toString('base64');

test('a token Secret of an existing account is filled; deleting the account deletes it', async () => {
  const sa = await request(server.url, 'POST', '/api/v1/namespaces/tok/serviceaccounts', { body: { metadata: { name: 'robot' } } });
  assert.equal(sa.status, 201, sa.text);
  assert.equal((await request(server.url, 'POST', SECRETS, { body: tokenSecret('robot-token', 'robot') })).status, 201);
  await until('the token secret is filled', async () => (await request(server.url, 'GET', `${SECRETS}/robot-token`)).json.data?.token !== undefined);
  const filled = (await request(server.url, 'GET', `${SECRETS}/robot-token`)).json;
  assert.equal(filled.data.token, b64('token-for-tok-robot-robot-token'));
  assert.equal(filled.data['ca.crt'], b64(CA));
  assert.equal(filled.data.namespace, b64('tok'));
  assert.equal(filled.metadata.annotations['kubernetes.io/service-account.uid'], sa.json.metadata.uid);
  assert.deepEqual(signed.find((c) => c.secretName === 'robot-token'), { namespace: 'tok', serviceAccountName: 'robot', serviceAccountUid: sa.json.metadata.uid, secretName: 'robot-token' });

  // A plain Secret is left alone.
  assert.equal((await request(server.url, 'POST', SECRETS, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'plain' }, data: { k: b64('v') } } })).status, 201);

  assert.equal((await request(server.url, 'DELETE', '/api/v1/namespaces/tok/serviceaccounts/robot')).status, 200);
  await until('the token secret of the deleted account is deleted', async () => (await request(server.url, 'GET', `${SECRETS}/robot-token`)).status === 404);
  assert.equal((await request(server.url, 'GET', `${SECRETS}/plain`)).status, 200);
});

test('a token Secret naming an account that does not exist is deleted', async () => {
  assert.equal((await request(server.url, 'POST', SECRETS, { body: tokenSecret('ghost-token', 'ghost') })).status, 201);
  await until('the token secret of a missing account is deleted', async () => (await request(server.url, 'GET', `${SECRETS}/ghost-token`)).status === 404);
});
