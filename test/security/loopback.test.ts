// The loopback listener (src/server/loopback.ts): in-process clients reach the
// secure server over plain HTTP on a local socket with in-memory tokens. Only
// those tokens open it (no anonymous, no other credentials); they are nothing
// on the TLS port; the identity they carry is authorized by RBAC as any other.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Agent, request } from 'undici';
import { RestClient } from '../../src/client/index.js';
import { secureRequest, startSecureServer } from './helpers.js';

let server: Awaited<ReturnType<typeof startSecureServer>>;

before(async () => {
  server = await startSecureServer();
});
after(() => server.stop());

async function overSocket(socketPath: string, path: string, token?: string): Promise<{ status: number; json: { status?: string; reason?: string; message?: string } }> {
  const dispatcher = new Agent({ connect: { socketPath } });
  try {
    const res = await request(`http://localhost${path}`, { dispatcher, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
    return { status: res.statusCode, json: (await res.body.json()) as { status?: string } };
  } finally {
    await dispatcher.close();
  }
}

test('loopback credentials reach the server over a local socket as their identity, authorized by RBAC', { skip: process.platform !== 'linux' && 'abstract sockets are Linux only' }, async () => {
  const admin = server.loopbackCredentials!('system:apiserver', ['system:masters']);
  assert.equal(admin.server, 'http://localhost');
  assert.ok(admin.socketPath !== undefined && admin.bearerToken !== undefined);
  const client = new RestClient({ ...admin, userAgent: 'loopback-test' });
  try {
    const created = await client.builtin('namespaces').create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'loopback' } });
    assert.equal(created.metadata.name, 'loopback');
  } finally {
    await client.close();
  }
  // A controller identity gets only what its role grants: the namespace controller may not create configmaps.
  const controller = server.loopbackCredentials!('system:serviceaccount:kube-system:namespace-controller', ['system:serviceaccounts', 'system:serviceaccounts:kube-system']);
  const whoami = await overSocket(controller.socketPath!, '/api/v1/namespaces/loopback/configmaps', controller.bearerToken);
  assert.equal(whoami.status, 200, 'the namespace controller lists everything');
  const asController = new RestClient({ ...controller });
  try {
    await assert.rejects(asController.configMaps('loopback').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }), (err: Error) =>
      /configmaps is forbidden: User "system:serviceaccount:kube-system:namespace-controller" cannot create resource "configmaps" in API group "" in the namespace "loopback"/.test(err.message),
    );
  } finally {
    await asController.close();
  }
});

test('the loopback socket takes nothing but its tokens; the TLS port does not know them', { skip: process.platform !== 'linux' && 'abstract sockets are Linux only' }, async () => {
  const { socketPath, bearerToken } = server.loopbackCredentials!('system:apiserver', ['system:masters']);
  // No credential: 401 there (the TLS port would take it as anonymous).
  const anonymous = await overSocket(socketPath!, '/version');
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.json.reason, 'Unauthorized');
  assert.equal((await secureRequest(server.url, server.ca, 'GET', '/version')).status, 200, 'anonymous /version on the TLS port');
  // A token from the token file: not a loopback credential.
  assert.equal((await overSocket(socketPath!, '/version', 'alice-token')).status, 401);
  assert.equal((await overSocket(socketPath!, '/version', `${bearerToken}x`)).status, 401);
  // The loopback token on the TLS port: an unknown bearer token, 401.
  const onTls = await secureRequest(server.url, server.ca, 'GET', '/api/v1/namespaces', { headers: { authorization: `Bearer ${bearerToken}` } });
  assert.equal(onTls.status, 401);
  assert.equal((await overSocket(socketPath!, '/api/v1/namespaces', bearerToken)).status, 200);
});
