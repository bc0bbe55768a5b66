// Real kubectl 1.32 against a real server: discovery, get, create -f, delete.
// (Tables, protobuf and OpenAPI arrive with another issue: -o json and
// --validate=false keep kubectl off them for now.)

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runKubectl } from '../helpers/kubectl.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { request } from '../helpers/http.js';

let server: TestServer;

before(async () => {
  server = await startTestServer();
  const ns = await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } } });
  assert.equal(ns.status, 201, ns.text);
});
after(() => server.stop());

test('the kubeconfig the server writes points kubectl at it', () => {
  const text = fs.readFileSync(server.kubeconfigPath, 'utf8');
  assert.match(text, new RegExp(`server: ${server.url.replace(/[.]/g, '\\.')}`));
  assert.match(text, /current-context: apiary/);
  assert.match(text, /namespace: default/);
});

test('kubectl get ns -o json', async () => {
  const result = await runKubectl(server.kubeconfigPath, ['get', 'ns', '-o', 'json']);
  assert.equal(result.code, 0, result.stderr);
  const list = JSON.parse(result.stdout);
  assert.equal(list.kind, 'List');
  assert.ok(list.items.some((n: { metadata: { name: string } }) => n.metadata.name === 'default'));
});

test('kubectl create -f of a JSON manifest, get cm -o json, delete cm', async () => {
  const manifest = path.join(server.dataDir, 'cm.json');
  fs.writeFileSync(manifest, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-kubectl' }, data: { k: 'v' } }));
  const created = await runKubectl(server.kubeconfigPath, ['create', '-f', manifest, '--validate=false']);
  assert.equal(created.code, 0, created.stderr);
  assert.equal(created.stdout.trim(), 'configmap/from-kubectl created');

  const got = await runKubectl(server.kubeconfigPath, ['get', 'cm', 'from-kubectl', '-o', 'json']);
  assert.equal(got.code, 0, got.stderr);
  const object = JSON.parse(got.stdout);
  assert.equal(object.metadata.namespace, 'default');
  assert.deepEqual(object.data, { k: 'v' });

  const again = await runKubectl(server.kubeconfigPath, ['create', '-f', manifest, '--validate=false']);
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /Error from server \(AlreadyExists\).*configmaps "from-kubectl" already exists/);

  const deleted = await runKubectl(server.kubeconfigPath, ['delete', 'cm', 'from-kubectl']);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.equal(deleted.stdout.trim(), 'configmap "from-kubectl" deleted');

  const missing = await runKubectl(server.kubeconfigPath, ['get', 'cm', 'from-kubectl', '-o', 'json']);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /Error from server \(NotFound\): configmaps "from-kubectl" not found/);
});
