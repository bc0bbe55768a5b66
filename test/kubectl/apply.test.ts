// Real kubectl 1.32 server-side apply against apiary: create, unchanged
// re-apply, removing a field, a conflict and its printed message,
// --force-conflicts, client-side apply followed by server-side apply
// (kubectl's last-applied migration and the server's conflict allowance),
// --show-managed-fields, diff --server-side and --dry-run=server. The
// expected outputs are what kubectl prints against kube-apiserver 1.32.4 for
// the same steps. Tests share one server and run in order.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { type Kubectl, kubectlAgainstNewServer } from './helpers.js';

let k: Kubectl;
let dir: string;

function manifest(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        ports:
        - containerPort: 80
`;

// kube-apiserver 1.32.4's entry for `kubectl apply --server-side` of DEPLOYMENT.
const DEPLOYMENT_APPLY_FIELDS = {
  'f:metadata': { 'f:labels': { 'f:app': {} } },
  'f:spec': {
    'f:replicas': {},
    'f:selector': {},
    'f:template': {
      'f:metadata': { 'f:labels': { 'f:app': {} } },
      'f:spec': {
        'f:containers': {
          'k:{"name":"nginx"}': {
            '.': {},
            'f:image': {},
            'f:name': {},
            'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
          },
        },
      },
    },
  },
};

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: unknown;
  subresource?: string;
}

async function managedFields(kind: string, name: string): Promise<Entry[]> {
  const out = await k.ok(['get', kind, name, '-o', 'json', '--show-managed-fields']);
  return (JSON.parse(out) as { metadata: { managedFields?: Entry[] } }).metadata.managedFields ?? [];
}

before(async () => {
  k = await kubectlAgainstNewServer();
  dir = fs.mkdtempSync(path.join(k.server.dataDir, 'manifests-'));
});

after(async () => {
  await k.server.stop();
});

test('apply --server-side creates, re-applies unchanged without a write, and records the Apply entry as upstream', async () => {
  const file = manifest('web.yaml', DEPLOYMENT);
  assert.equal(await k.ok(['apply', '--server-side', '-f', file]), 'deployment.apps/web serverside-applied\n');
  const rv = await k.ok(['get', 'deploy', 'web', '-o', 'jsonpath={.metadata.resourceVersion}']);
  assert.equal(await k.ok(['apply', '--server-side', '-f', file]), 'deployment.apps/web serverside-applied\n');
  assert.equal(await k.ok(['get', 'deploy', 'web', '-o', 'jsonpath={.metadata.resourceVersion}']), rv, 'an unchanged apply writes nothing');

  const entries = await managedFields('deploy', 'web');
  assert.equal(entries.length, 1);
  const [entry] = entries;
  assert.equal(entry!.manager, 'kubectl');
  assert.equal(entry!.operation, 'Apply');
  assert.equal(entry!.apiVersion, 'apps/v1');
  assert.equal(entry!.fieldsType, 'FieldsV1');
  assert.match(entry!.time!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.deepEqual(entry!.fieldsV1, DEPLOYMENT_APPLY_FIELDS);

  // kubectl hides managedFields unless asked.
  const plain = YAML.parse(await k.ok(['get', 'deploy', 'web', '-o', 'yaml'])) as { metadata: Record<string, unknown> };
  assert.equal(plain.metadata['managedFields'], undefined);
  const shown = YAML.parse(await k.ok(['get', 'deploy', 'web', '-o', 'yaml', '--show-managed-fields'])) as { metadata: Record<string, unknown> };
  assert.ok(Array.isArray(shown.metadata['managedFields']));
});

test('a field left out of the next apply is removed', async () => {
  const file = manifest('web-nolabel.yaml', DEPLOYMENT.replace('  labels:\n    app: web\nspec:', 'spec:'));
  await k.ok(['apply', '--server-side', '-f', file]);
  assert.equal(await k.ok(['get', 'deploy', 'web', '-o', 'jsonpath={.metadata.labels}']), '');
  const [entry] = await managedFields('deploy', 'web');
  assert.equal((entry!.fieldsV1 as Record<string, unknown>)['f:metadata'], undefined);
});

test('another manager changing an owned field conflicts, with upstream\'s message; --force-conflicts takes it', async () => {
  const other = manifest('web-other.yaml', DEPLOYMENT.replace('replicas: 2', 'replicas: 5'));
  const stderr = await k.fails(['apply', '--server-side', '--field-manager=ci', '-f', other]);
  assert.match(stderr, /^error: Apply failed with 1 conflict: conflict with "kubectl": \.spec\.replicas\nPlease review the fields above--they currently have other managers\./);
  assert.match(stderr, /--force-conflicts/);

  assert.equal(await k.ok(['apply', '--server-side', '--field-manager=ci', '--force-conflicts', '-f', other]), 'deployment.apps/web serverside-applied\n');
  assert.equal(await k.ok(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas}']), '5');
  const entries = await managedFields('deploy', 'web');
  const byManager = new Map(entries.map((e) => [e.manager, e]));
  const kubectlSpec = (byManager.get('kubectl')!.fieldsV1 as Record<string, Record<string, unknown>>)['f:spec']!;
  assert.equal(kubectlSpec['f:replicas'], undefined, 'kubectl lost .spec.replicas');
  assert.deepEqual((byManager.get('ci')!.fieldsV1 as Record<string, Record<string, unknown>>)['f:spec']!['f:replicas'], {});
});

test('client-side apply, then server-side apply of a changed manifest: no conflict, entries as upstream', async () => {
  const v1 = manifest('csa-1.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: csa\ndata:\n  a: "1"\n  b: "2"\n');
  const v2 = manifest('csa-2.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: csa\ndata:\n  a: "9"\n  b: "2"\n');
  assert.equal(await k.ok(['apply', '-f', v1]), 'configmap/csa created\n');
  const before = await managedFields('cm', 'csa');
  assert.deepEqual(
    before.map((e) => [e.manager, e.operation]),
    [['kubectl-client-side-apply', 'Update']],
  );
  assert.equal(await k.ok(['apply', '--server-side', '-f', v2]), 'configmap/csa serverside-applied\n');
  const cm = JSON.parse(await k.ok(['get', 'cm', 'csa', '-o', 'json', '--show-managed-fields'])) as {
    data: Record<string, string>;
    metadata: { annotations: Record<string, string>; managedFields: Entry[] };
  };
  assert.deepEqual(cm.data, { a: '9', b: '2' });
  assert.equal(
    cm.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'],
    '{"apiVersion":"v1","data":{"a":"9","b":"2"},"kind":"ConfigMap","metadata":{"name":"csa","namespace":"default"}}\n',
  );
  assert.deepEqual(
    cm.metadata.managedFields.map((e) => ({ manager: e.manager, operation: e.operation, fieldsV1: e.fieldsV1 })),
    [
      { manager: 'kubectl-last-applied', operation: 'Apply', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } } },
      { manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } },
    ],
  );
});

test('diff --server-side shows the merged object; apply --dry-run=server changes nothing', async () => {
  const changed = manifest('web-3.yaml', DEPLOYMENT.replace('replicas: 2', 'replicas: 5').replace('nginx:1.25', 'nginx:1.26'));
  const diff = await k.run(['diff', '--server-side', '--force-conflicts', '-f', changed]);
  assert.equal(diff.code, 1, diff.stderr);
  assert.match(diff.stdout, /^-      - image: nginx:1\.25$/m);
  assert.match(diff.stdout, /^\+      - image: nginx:1\.26$/m);
  const rv = await k.ok(['get', 'deploy', 'web', '-o', 'jsonpath={.metadata.resourceVersion}']);
  assert.equal(
    await k.ok(['apply', '--server-side', '--force-conflicts', '--dry-run=server', '-f', changed]),
    'deployment.apps/web serverside-applied (server dry run)\n',
  );
  assert.equal(await k.ok(['get', 'deploy', 'web', '-o', 'jsonpath={.metadata.resourceVersion}']), rv);
  assert.equal(await k.ok(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}']), 'nginx:1.25');
});

test('writes by kubectl create, edit-style patches and replace are Update entries named as upstream', async () => {
  await k.ok(['create', 'configmap', 'made', '--from-literal=x=1']);
  await k.ok(['label', 'configmap', 'made', 'team=a']);
  const entries = await managedFields('cm', 'made');
  assert.deepEqual(
    entries.map((e) => [e.manager, e.operation, e.fieldsV1]),
    [
      ['kubectl-create', 'Update', { 'f:data': { '.': {}, 'f:x': {} } }],
      ['kubectl-label', 'Update', { 'f:metadata': { 'f:labels': { '.': {}, 'f:team': {} } } }],
    ],
  );
});

test('kubectl scale: deployments and replication controllers through /scale, with a scale entry; --current-replicas checked', async () => {
  assert.equal(await k.ok(['scale', 'deployment', 'web', '--replicas=3']), 'deployment.apps/web scaled\n');
  assert.equal(await k.ok(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas}']), '3');
  const scaleEntry = (await managedFields('deploy', 'web')).find((e) => e.subresource === 'scale');
  assert.deepEqual(scaleEntry, { apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } }, manager: 'kubectl', operation: 'Update', subresource: 'scale' });
  assert.equal(await k.fails(['scale', 'deployment', 'web', '--current-replicas=7', '--replicas=4']), 'error: Expected replicas to be 7, was 3\n');

  const rc = manifest('rc.yaml', 'apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: rc1\nspec:\n  replicas: 1\n  selector: {app: rc1}\n  template:\n    metadata: {labels: {app: rc1}}\n    spec: {containers: [{name: c, image: busybox}]}\n');
  await k.ok(['create', '-f', rc]);
  assert.equal(await k.ok(['scale', 'rc', 'rc1', '--current-replicas=1', '--replicas=2']), 'replicationcontroller/rc1 scaled\n');
  assert.equal(await k.ok(['get', 'rc', 'rc1', '-o', 'jsonpath={.spec.replicas}']), '2');
  const scale = JSON.parse(await k.ok(['get', '--raw', '/api/v1/namespaces/default/replicationcontrollers/rc1/scale'])) as { spec: unknown; status: unknown };
  assert.deepEqual({ spec: scale.spec, status: scale.status }, { spec: { replicas: 2 }, status: { replicas: 0, selector: 'app=rc1' } });
});
