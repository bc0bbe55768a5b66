// Upgrades through the aggregator: the shared upgrade-aware proxy
// (src/server/proxy/upgrade-aware.ts) also carries an extension server's
// protocol switch. A real extension server on loopback (test/helpers/
// extension-server.ts) answers an upgrade to its `echo` protocol with 101 and
// echoes every byte; through apiary (TLS, tokens, RBAC) the client gets the
// extension's 101 as it was written (its own headers included) and its bytes
// back, the extension sees the caller as front-proxy headers, and a caller
// without rights gets apiary's 403 Status on the upgrade request, the
// extension never reached. Stopping the server ends an open upgraded connection.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';
import { WARDLE_GROUP, WARDLE_VERSION, makeFrontProxyPki, startExtensionServer, type ExtensionServer, type FrontProxyPki } from '../helpers/extension-server.js';

const ADMIN_TOKEN = 'admin-token-upgrade-test';
const ALICE_TOKEN = 'alice-token-upgrade-test';
const ECHO_PATH = `/apis/${WARDLE_GROUP}/${WARDLE_VERSION}/namespaces/default/flunders/f1/echo`;

let server: TestServer;
let extension: ExtensionServer;
let pki: FrontProxyPki;
let dir: string;
let stopped = false;

async function call(method: string, urlPath: string, body?: unknown): Promise<{ status: number; text: string; json: () => any }> {
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = https.request(server.url + urlPath, { method, ca: server.admin.caData, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' } }, resolve);
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return { status: res.statusCode ?? 0, text, json: () => JSON.parse(text) };
}

type UpgradeResult = { switched: true; res: http.IncomingMessage; socket: Duplex } | { switched: false; res: http.IncomingMessage; body: string };

/** An upgrade request to the `echo` protocol as the token's user. */
function upgrade(token: string): Promise<UpgradeResult> {
  return new Promise((resolve, reject) => {
    const req = https.request(server.url + ECHO_PATH, {
      method: 'GET',
      ca: server.admin.caData,
      headers: { authorization: `Bearer ${token}`, connection: 'Upgrade', upgrade: 'echo', 'x-remote-user': 'mallory' },
    });
    req.on('upgrade', (res, socket) => resolve({ switched: true, res, socket }));
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (s: string) => (body += s)).on('end', () => resolve({ switched: false, res, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

before(async () => {
  pki = await makeFrontProxyPki();
  extension = await startExtensionServer({ frontProxyCaPem: pki.caPem });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-upgrade-'));
  fs.writeFileSync(path.join(dir, 'tokens.csv'), `${ADMIN_TOKEN},admin,admin-uid,"system:masters"\n${ALICE_TOKEN},alice,alice-uid,"devs"\n`);
  server = await startTestServer({
    security: { tlsTermination: 'inline', tokenAuthFile: path.join(dir, 'tokens.csv') },
    proxyClientCertFile: pki.clientCertFile,
    proxyClientKeyFile: pki.clientKeyFile,
    apiServiceAvailabilityIntervalMs: 500,
  });
  assert.equal((await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } })).status, 201);
  const svc = await call('POST', '/api/v1/namespaces/default/services', {
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'api' }, spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ port: extension.port }] },
  });
  assert.equal(svc.status, 201, svc.text);
  const created = await call('POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
    apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: `${WARDLE_VERSION}.${WARDLE_GROUP}` },
    spec: { group: WARDLE_GROUP, version: WARDLE_VERSION, service: { namespace: 'default', name: 'api', port: extension.port }, caBundle: Buffer.from(extension.caPem).toString('base64'), groupPriorityMinimum: 2000, versionPriority: 200 },
  });
  assert.equal(created.status, 201, created.text);
  await until('the wardle APIService is Available', async () => {
    const svc = (await call('GET', `/apis/apiregistration.k8s.io/v1/apiservices/${WARDLE_VERSION}.${WARDLE_GROUP}`)).json();
    return (svc.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Available' && c.status === 'True');
  }, 15_000, 100);
});

after(async () => {
  if (!stopped) await server?.stop();
  await extension?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(pki.dir, { recursive: true, force: true });
});

test('an upgrade passes through to the extension server and its bytes come back', async () => {
  extension.requests.length = 0;
  const result = await upgrade(ADMIN_TOKEN);
  assert.equal(result.switched, true, result.switched ? '' : `no switch: ${result.res.statusCode} ${result.body}`);
  if (!result.switched) return;
  assert.equal(result.res.statusCode, 101);
  assert.equal(result.res.headers['upgrade'], 'echo');
  // The extension's own header, written as it wrote it: the user it saw is apiary's, not the one the caller claimed.
  assert.equal(result.res.headers['x-seen-user'], 'admin');
  const seen = extension.requests.find((r) => r.path.endsWith('/echo'))!;
  assert.equal(seen.headers['authorization'], undefined);
  assert.equal(seen.headers['upgrade'], 'echo');
  let echoed = '';
  result.socket.setEncoding('utf8').on('data', (s: string) => (echoed += s));
  result.socket.write('ping ');
  result.socket.write('pong');
  await until('the bytes come back', () => echoed === 'ping pong', 5000, 10);
  result.socket.destroy();
});

test('an upgrade by a caller without rights is refused with apiary’s 403, the extension never reached', async () => {
  extension.requests.length = 0;
  const result = await upgrade(ALICE_TOKEN);
  assert.equal(result.switched, false);
  if (result.switched) return;
  assert.equal(result.res.statusCode, 403);
  assert.match(JSON.parse(result.body).message, /User "alice" cannot get resource "flunders\/echo" in API group "wardle\.example\.com" in the namespace "default"/);
  assert.equal(extension.requests.filter((r) => r.path.endsWith('/echo')).length, 0);
});

test('the server stops with an upgraded connection still open, ending it', async () => {
  const result = await upgrade(ADMIN_TOKEN);
  assert.equal(result.switched, true);
  if (!result.switched) return;
  const ended = new Promise<void>((resolve) => result.socket.once('close', () => resolve()));
  const started = Date.now();
  await server.stop();
  await ended;
  // Requests in flight get 2 s; an open tunnel is then closed, not waited for.
  assert.ok(Date.now() - started < 10_000, `stopping took ${Date.now() - started} ms`);
  stopped = true;
});
