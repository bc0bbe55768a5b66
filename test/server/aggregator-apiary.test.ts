// Both sides of aggregation with apiary itself: apiary B serves a custom
// resource group and trusts apiary A's front-proxy CA
// (--requestheader-client-ca-file); A registers B's group through an
// APIService (caBundle = B's CA) and an ExternalName Service to `localhost`.
// kubectl against A creates, lists and deletes B's objects; B authenticates
// the user A forwards (front-proxy headers over A's generated client certificate).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import https from 'node:https';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { runKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/wait.js';

let a: TestServer;
let b: TestServer;

function call(server: TestServer, method: string, urlPath: string, body?: unknown): Promise<{ status: number; json: any; text: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      server.url + urlPath,
      { method, ca: server.admin.caData, cert: server.admin.certData, key: server.admin.keyData, headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, json, text });
        });
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

before(async () => {
  a = await startTestServer({ security: { tlsTermination: 'inline' } });
  b = await startTestServer({
    security: {
      tlsTermination: 'inline',
      tlsSans: ['toys.default.svc'],
      requestheaderClientCaFile: path.join(a.dataDir, 'pki', 'front-proxy-ca.crt'),
      requestheaderAllowedNames: ['front-proxy-client'],
    },
  });
  for (const server of [a, b]) assert.equal((await call(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } })).status, 201);
  const crd = await call(b, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gizmos.toys.example.com' },
    spec: { group: 'toys.example.com', scope: 'Namespaced', names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', shortNames: ['gz'] }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
  });
  assert.equal(crd.status, 201, crd.text);
  await until('B serves gizmos', async () => (await call(b, 'GET', '/apis/toys.example.com/v1/namespaces/default/gizmos')).status === 200, 15_000, 100);
  const port = Number(new URL(b.url).port);
  assert.equal((await call(a, 'POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'toys' }, spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ port }] } })).status, 201);
  const registered = await call(a, 'POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
    apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.toys.example.com' },
    spec: { group: 'toys.example.com', version: 'v1', service: { namespace: 'default', name: 'toys', port }, caBundle: Buffer.from(b.admin.caData!).toString('base64'), groupPriorityMinimum: 1000, versionPriority: 15 },
  });
  assert.equal(registered.status, 201, registered.text);
  await until('v1.toys.example.com Available on A', async () => {
    const svc = (await call(a, 'GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.toys.example.com')).json;
    return svc?.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Available' && c.status === 'True') === true;
  }, 15_000, 100);
});

after(async () => {
  await a?.stop();
  await b?.stop();
});

test('kubectl against A works with B’s custom resources', async () => {
  const manifest = JSON.stringify({ apiVersion: 'toys.example.com/v1', kind: 'Gizmo', metadata: { name: 'g1' }, spec: { size: 3 } });
  const created = await runKubectl(a.kubeconfigPath, ['create', '--validate=false', '-f', '-'], { stdin: manifest });
  assert.equal(created.code, 0, created.stderr);
  const onB = await call(b, 'GET', '/apis/toys.example.com/v1/namespaces/default/gizmos/g1');
  assert.equal(onB.status, 200, onB.text);
  assert.equal(onB.json.spec.size, 3);
  const got = await runKubectl(a.kubeconfigPath, ['get', 'gz', 'g1', '-o', 'jsonpath={.spec.size}']);
  assert.equal(got.code, 0, got.stderr);
  assert.equal(got.stdout, '3');
  const resources = await runKubectl(a.kubeconfigPath, ['api-resources', '--api-group=toys.example.com']);
  assert.equal(resources.code, 0, resources.stderr);
  assert.match(resources.stdout, /^gizmos\s+gz\s+toys\.example\.com\/v1\s+true\s+Gizmo$/m);
  const deleted = await runKubectl(a.kubeconfigPath, ['delete', 'gizmo', 'g1']);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.equal((await call(b, 'GET', '/apis/toys.example.com/v1/namespaces/default/gizmos/g1')).status, 404);
});

test('B believes X-Remote-* headers only from A’s front-proxy certificate', async () => {
  // A direct request to B with X-Remote-* headers and no front-proxy certificate is not that user.
  const direct = await new Promise<number>((resolve, reject) => {
    const req = https.request(`${b.url}/apis/toys.example.com/v1/namespaces/default/gizmos`, { ca: b.admin.caData, headers: { 'x-remote-user': 'kubernetes-admin', 'x-remote-group': 'system:masters' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(direct, 403, 'anonymous, not the named user');
});
