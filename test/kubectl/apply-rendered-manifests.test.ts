// Real kubectl 1.32 on manifests as Helm charts render them (issue 34 items 2 and 3):
// `metadata.annotations:` with nothing after it (null), and zero/false values the typed
// object omits (minReadySeconds: 0, hostNetwork: false, readOnly: false). What kube-apiserver
// 1.32.4 does with the same steps: server-side apply after client-side apply succeeds (no
// 500, no conflicts), re-applying the unchanged manifest keeps the generation, and
// `kubectl diff` exits 0. test/compat/differential/cases/issue-34.ts compares the requests.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { type Kubectl, kubectlAgainstNewServer } from './helpers.js';

let k: Kubectl;
let dir: string;

function manifest(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

const SERVICE = `apiVersion: v1
kind: Service
metadata:
  name: web
  annotations:
  labels:
spec:
  ports:
  - port: 80
    targetPort: 8080
  selector:
    app: web
`;

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: zeroes
spec:
  replicas: 1
  minReadySeconds: 0
  selector:
    matchLabels:
      app: zeroes
  template:
    metadata:
      labels:
        app: zeroes
    spec:
      hostNetwork: false
      containers:
      - name: c
        image: nginx:1.25
        volumeMounts:
        - name: v
          mountPath: /v
          readOnly: false
      volumes:
      - name: v
        emptyDir: {}
`;

before(async () => {
  k = await kubectlAgainstNewServer();
  dir = fs.mkdtempSync(path.join(k.server.dataDir, 'manifests-'));
});

after(async () => {
  await k.server.stop();
});

test('server-side apply of an object client-side applied from a manifest with null annotations', async () => {
  const file = manifest('svc.yaml', SERVICE);
  assert.equal(await k.ok(['apply', '-f', file]), 'service/web created\n');
  const ssa = await k.run(['apply', '--server-side', '-f', file]);
  assert.equal(ssa.code, 0, ssa.stderr);
  assert.equal(ssa.stdout, 'service/web serverside-applied\n');
  assert.equal(ssa.stderr, '', 'kubectl re-applies its migration without an error');
  const forced = await k.run(['apply', '--server-side', '--force-conflicts', '-f', file]);
  assert.equal(forced.code, 0, forced.stderr);
  const diff = await k.run(['diff', '--server-side', '-f', file]);
  assert.equal(diff.code, 0, diff.stdout + diff.stderr);
  // the last-applied annotation kubectl keeps in step holds no annotations map (upstream drops a null one)
  const last = await k.ok(['get', 'svc', 'web', '-o', 'jsonpath={.metadata.annotations.kubectl\\.kubernetes\\.io/last-applied-configuration}']);
  assert.equal(JSON.parse(last).metadata.annotations, undefined, last);
});

test('zero and false values: re-apply keeps the generation, diff exits 0, server-side apply has no conflicts', async () => {
  const file = manifest('deploy.yaml', DEPLOYMENT);
  assert.equal(await k.ok(['apply', '-f', file]), 'deployment.apps/zeroes created\n');
  const fields = JSON.stringify(JSON.parse(await k.ok(['get', 'deploy', 'zeroes', '-o', 'json', '--show-managed-fields'])).metadata.managedFields);
  for (const f of ['f:minReadySeconds', 'f:hostNetwork', 'f:readOnly']) assert.ok(!fields.includes(f), `client-side apply owns no ${f}: ${fields}`);
  await k.ok(['apply', '-f', file]);
  assert.equal(await k.ok(['get', 'deploy', 'zeroes', '-o', 'jsonpath={.metadata.generation}']), '1');
  const diff = await k.run(['diff', '-f', file]);
  assert.equal(diff.code, 0, diff.stdout + diff.stderr);
  const ssa = await k.run(['apply', '--server-side', '-f', file]);
  assert.equal(ssa.code, 0, ssa.stderr);
  assert.equal(ssa.stdout, 'deployment.apps/zeroes serverside-applied\n');
});

test('null maps in a manifest apply as upstream: server-side and client-side, the object has none', async () => {
  const text = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  labels:\n  annotations:\ndata:\nbinaryData:\n`;
  assert.equal(await k.ok(['apply', '--server-side', '-f', manifest('ssa.yaml', text('ssa'))]), 'configmap/ssa serverside-applied\n');
  assert.equal(await k.ok(['apply', '-f', manifest('csa.yaml', text('csa'))]), 'configmap/csa created\n');
  for (const name of ['ssa', 'csa']) {
    const obj = JSON.parse(await k.ok(['get', 'configmap', name, '-o', 'json'])) as Record<string, Record<string, unknown> | undefined>;
    assert.equal(obj['data'], undefined, name);
    assert.equal(obj['binaryData'], undefined, name);
    assert.equal(obj['metadata']!['labels'], undefined, name);
  }
  // and again, unchanged: nothing to do, no error
  assert.equal(await k.ok(['apply', '--server-side', '-f', path.join(dir, 'ssa.yaml')]), 'configmap/ssa serverside-applied\n');
  const diff = await k.run(['diff', '-f', path.join(dir, 'csa.yaml')]);
  assert.equal(diff.code, 0, diff.stdout + diff.stderr);
});
