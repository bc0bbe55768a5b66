// Real kubectl 1.32 against apiary: the everyday verbs and their error
// messages, compared with what kubectl prints against a kube-apiserver 1.32.
// kubectl's typed create commands send protobuf bodies, get asks for Tables,
// apply/create/replace -f validate (fieldValidation=Strict after reading
// /openapi/v3), and client-side apply sends strategic merge patches: every one
// of those paths is exercised here. Tests share one server and run in order.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { type Kubectl, expectTable, kubectlAgainstNewServer, tableRows } from './helpers.js';

let k: Kubectl;
let dir: string;
const AGE = /^\d+s$/;

function manifest(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web, tier: front}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        env:
        - {name: A, value: "1"}
`;

before(async () => {
  k = await kubectlAgainstNewServer();
  dir = k.server.dataDir;
});
after(() => k.server.stop());

test('kubectl create namespace | configmap --from-literal | secret generic | serviceaccount | deployment (protobuf bodies)', async () => {
  assert.equal(await k.ok(['create', 'namespace', 'demo']), 'namespace/demo created\n');
  assert.equal(await k.ok(['create', 'configmap', 'settings', '--from-literal=mode=fast', '--from-literal=level=3', '-n', 'demo']), 'configmap/settings created\n');
  assert.equal(await k.ok(['create', 'secret', 'generic', 'token', '--from-literal=password=s3cret', '-n', 'demo']), 'secret/token created\n');
  assert.equal(await k.ok(['create', 'serviceaccount', 'robot', '-n', 'demo']), 'serviceaccount/robot created\n');
  assert.equal(await k.ok(['create', 'deployment', 'api', '--image=nginx:1.25', '--replicas=3', '-n', 'demo']), 'deployment.apps/api created\n');

  const secret = JSON.parse(await k.ok(['get', 'secret', 'token', '-n', 'demo', '-o', 'json']));
  assert.equal(secret.type, 'Opaque');
  assert.equal(Buffer.from(secret.data.password, 'base64').toString(), 's3cret');
  const deployment = JSON.parse(await k.ok(['get', 'deploy', 'api', '-n', 'demo', '-o', 'json']));
  assert.equal(deployment.spec.replicas, 3);
  assert.deepEqual(deployment.spec.selector, { matchLabels: { app: 'api' } });
  assert.equal(deployment.spec.template.spec.containers[0].image, 'nginx:1.25');
});

test('kubectl create -f validates against the schema and creates', async () => {
  const file = manifest('web.yaml', DEPLOYMENT);
  assert.equal(await k.ok(['create', '-f', file]), 'deployment.apps/web created\n');
  const again = await k.fails(['create', '-f', file]);
  assert.equal(again, `Error from server (AlreadyExists): error when creating "${file}": deployments.apps "web" already exists\n`);
  const unknown = manifest('unknown.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typo\nspec:\n  foo: 1\n');
  const strict = await k.fails(['create', '-f', unknown]);
  assert.equal(
    strict,
    `Error from server (BadRequest): error when creating "${unknown}": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"\n`,
  );
  // --validate=warn sends fieldValidation=Warn: created, with the server's warning printed.
  const warned = await k.run(['create', '-f', unknown, '--validate=warn']);
  assert.equal(warned.code, 0, warned.stderr);
  assert.equal(warned.stdout, 'configmap/typo created\n');
  assert.match(warned.stderr, /^Warning: unknown field "spec"$/m);
});

test('kubectl get: tables per kind, -o wide|yaml|json|name|jsonpath|custom-columns', async () => {
  const ns = expectTable(await k.ok(['get', 'ns']), ['NAME', 'STATUS', 'AGE']);
  assert.deepEqual(ns.map((r) => r.slice(0, 2)), [['default', 'Active'], ['demo', 'Active']]);
  assert.match(ns[0]![2]!, AGE);

  const cms = expectTable(await k.ok(['get', 'cm', '-n', 'demo']), ['NAME', 'DATA', 'AGE']);
  assert.deepEqual(cms.map((r) => r.slice(0, 2)), [['settings', '2']]);

  const deploys = expectTable(await k.ok(['get', 'deploy']), ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
  assert.deepEqual(deploys.map((r) => r.slice(0, 4)), [['web', '0/2', '0', '0']]);
  const wide = expectTable(await k.ok(['get', 'deploy', '-o', 'wide']), ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
  assert.deepEqual([wide[0]![0], ...wide[0]!.slice(5)], ['web', 'nginx', 'nginx:1.25', 'app=web']);

  const yaml = YAML.parse(await k.ok(['get', 'cm', 'settings', '-n', 'demo', '-o', 'yaml']));
  assert.equal(yaml.kind, 'ConfigMap');
  assert.deepEqual(yaml.data, { level: '3', mode: 'fast' });
  const json = JSON.parse(await k.ok(['get', 'sa', 'robot', '-n', 'demo', '-o', 'json']));
  assert.equal(json.metadata.name, 'robot');

  assert.equal(await k.ok(['get', 'cm,secret', '-n', 'demo', '-o', 'name']), 'configmap/settings\nsecret/token\n');
  assert.equal(await k.ok(['get', 'cm', 'settings', '-n', 'demo', '-o', 'jsonpath={.data.mode}']), 'fast');
  const custom = tableRows(await k.ok(['get', 'deploy', '-o', 'custom-columns=NAME:.metadata.name,REPLICAS:.spec.replicas,IMAGE:.spec.template.spec.containers[0].image']));
  assert.deepEqual(custom, [['NAME', 'REPLICAS', 'IMAGE'], ['web', '2', 'nginx:1.25']]);
});

test('kubectl get --sort-by, -l, --field-selector, -A, get all', async () => {
  for (const name of ['b-cm', 'c-cm', 'a-cm']) await k.ok(['create', 'configmap', name, `--from-literal=k=${name}`]);
  await k.ok(['label', 'cm', 'a-cm', 'c-cm', 'team=blue']);
  const sorted = expectTable(await k.ok(['get', 'cm', '--sort-by=.metadata.name']), ['NAME', 'DATA', 'AGE']);
  assert.deepEqual(sorted.map((r) => r[0]), ['a-cm', 'b-cm', 'c-cm', 'typo']);
  const labelled = expectTable(await k.ok(['get', 'cm', '-l', 'team=blue']), ['NAME', 'DATA', 'AGE']);
  assert.deepEqual(labelled.map((r) => r[0]), ['a-cm', 'c-cm']);
  const notBlue = expectTable(await k.ok(['get', 'cm', '-l', 'team!=blue']), ['NAME', 'DATA', 'AGE']);
  assert.deepEqual(notBlue.map((r) => r[0]), ['b-cm', 'typo']);
  const byField = expectTable(await k.ok(['get', 'cm', '--field-selector', 'metadata.name=b-cm']), ['NAME', 'DATA', 'AGE']);
  assert.deepEqual(byField.map((r) => r[0]), ['b-cm']);
  const badField = await k.fails(['get', 'cm', '--field-selector', 'data.k=x']);
  assert.match(
    badField,
    /Error from server \(BadRequest\): Unable to find "\/v1, Resource=configmaps" that match label selector "", field selector "data\.k=x": "data\.k" is not a known field selector: only "metadata\.name", "metadata\.namespace"/,
  );

  const all = expectTable(await k.ok(['get', 'cm', '-A']), ['NAMESPACE', 'NAME', 'DATA', 'AGE']);
  assert.deepEqual(all.map((r) => `${r[0]}/${r[1]}`), ['default/a-cm', 'default/b-cm', 'default/c-cm', 'default/typo', 'demo/settings']);

  const everything = await k.ok(['get', 'all', '-n', 'demo']);
  assert.match(everything, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\ndeployment\.apps\/api\s+0\/3\s+0\s+0\s+\d+s\n$/);

  const none = await k.run(['get', 'cm', '-l', 'team=red']);
  assert.equal(none.code, 0);
  assert.equal(none.stdout, '');
  assert.equal(none.stderr, 'No resources found in default namespace.\n');
});

test('kubectl describe namespace, configmap, deployment', async () => {
  const ns = await k.ok(['describe', 'ns', 'demo']);
  assert.match(ns, /^Name:\s+demo\nLabels:\s+kubernetes\.io\/metadata\.name=demo\nAnnotations:\s+<none>\nStatus:\s+Active\n\nNo resource quota\.\n\nNo LimitRange resource\.\n$/);
  const cm = await k.ok(['describe', 'cm', 'settings', '-n', 'demo']);
  // kubectl walks the data map in Go's random map order, against a cluster too.
  assert.match(
    cm,
    /^Name:\s+settings\nNamespace:\s+demo\nLabels:\s+<none>\nAnnotations:\s+<none>\n\nData\n====\n(level:\n----\n3\n\nmode:\n----\nfast|mode:\n----\nfast\n\nlevel:\n----\n3)\n\n\nBinaryData\n====\n\nEvents:\s+<none>\n$/,
  );
  const deploy = await k.ok(['describe', 'deploy', 'web']);
  assert.match(deploy, /^Name:\s+web\nNamespace:\s+default\nCreationTimestamp:\s+\w{3}, \d\d \w{3} \d{4} [\d:]{8} \+0000\nLabels:\s+app=web\n\s+tier=front\n/);
  assert.match(deploy, /^Replicas:\s+2 desired \| 0 updated \| 0 total \| 0 available \| 0 unavailable$/m);
  assert.match(deploy, /^StrategyType:\s+RollingUpdate$/m);
  assert.match(deploy, /^RollingUpdateStrategy:\s+25% max unavailable, 25% max surge$/m);
  assert.match(deploy, /^ {3}nginx:\n {4}Image:\s+nginx:1\.25\n/m);
  assert.match(deploy, /^ {6}A:\s+1$/m);
});

test('kubectl label and annotate (merge patches), with overwrite rules', async () => {
  assert.equal(await k.ok(['label', 'cm', 'b-cm', 'env=prod']), 'configmap/b-cm labeled\n');
  const exists = await k.fails(['label', 'cm', 'b-cm', 'env=dev']);
  assert.equal(exists, "error: 'env' already has a value (prod), and --overwrite is false\n");
  assert.equal(await k.ok(['label', 'cm', 'b-cm', 'env=dev', '--overwrite']), 'configmap/b-cm labeled\n');
  assert.equal(await k.ok(['label', 'cm', 'b-cm', 'env-']), 'configmap/b-cm unlabeled\n');
  assert.equal(await k.ok(['annotate', 'cm', 'b-cm', 'owner=ops']), 'configmap/b-cm annotated\n');
  const got = JSON.parse(await k.ok(['get', 'cm', 'b-cm', '-o', 'json']));
  assert.deepEqual(got.metadata.annotations, { owner: 'ops' });
  assert.equal(got.metadata.labels, undefined);
});

test('kubectl patch: strategic (the default), merge, json', async () => {
  // Strategic: containers merge by name; the env list merges by name too.
  const strategic = '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","env":[{"name":"B","value":"2"}]}]}}}}';
  assert.equal(await k.ok(['patch', 'deploy', 'web', '-p', strategic]), 'deployment.apps/web patched\n');
  let d = JSON.parse(await k.ok(['get', 'deploy', 'web', '-o', 'json']));
  assert.equal(d.spec.template.spec.containers.length, 1);
  assert.equal(d.spec.template.spec.containers[0].image, 'nginx:1.25');
  assert.deepEqual(d.spec.template.spec.containers[0].env, [{ name: 'B', value: '2' }, { name: 'A', value: '1' }]);
  // Merge: lists are replaced whole.
  const merge = '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.26"}]}}}}';
  assert.equal(await k.ok(['patch', 'deploy', 'web', '--type=merge', '-p', merge]), 'deployment.apps/web patched\n');
  d = JSON.parse(await k.ok(['get', 'deploy', 'web', '-o', 'json']));
  assert.equal(d.spec.template.spec.containers[0].env, undefined);
  assert.equal(await k.ok(['patch', 'deploy', 'web', '--type=json', '-p', '[{"op":"replace","path":"/spec/replicas","value":4}]']), 'deployment.apps/web patched\n');
  d = JSON.parse(await k.ok(['get', 'deploy', 'web', '-o', 'json']));
  assert.equal(d.spec.replicas, 4);
  // A patch that changes nothing.
  assert.equal(await k.ok(['patch', 'deploy', 'web', '--type=merge', '-p', '{"spec":{"replicas":4}}']), 'deployment.apps/web patched (no change)\n');
  const bad = await k.fails(['patch', 'deploy', 'web', '--type=json', '-p', '[{"op":"test","path":"/spec/replicas","value":1}]']);
  // Upstream answers a failed test op with a 422 generic response; kubectl words it so.
  assert.equal(bad, 'The request is invalid: the server rejected our request due to an error in our request\n');
  const invalid = await k.fails(['patch', 'deploy', 'web', '--type=merge', '-p', '{"spec":{"replicas":-1}}']);
  assert.equal(invalid, 'The Deployment "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0\n');
});

test('kubectl apply -f: created, configured, unchanged (client-side apply, strategic merge patch)', async () => {
  const file = manifest('app.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  labels: {a: "1"}\ndata:\n  one: "1"\n  two: "2"\n');
  assert.equal(await k.ok(['apply', '-f', file]), 'configmap/app created\n');
  assert.equal(await k.ok(['apply', '-f', file]), 'configmap/app unchanged\n');
  fs.writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  one: "uno"\n  three: "3"\n');
  assert.equal(await k.ok(['apply', '-f', file]), 'configmap/app configured\n');
  const got = JSON.parse(await k.ok(['get', 'cm', 'app', '-o', 'json']));
  assert.deepEqual(got.data, { one: 'uno', three: '3' });
  assert.equal(got.metadata.labels, undefined);
  assert.match(got.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'], /"three":"3"/);

  const dep = manifest('web-apply.yaml', DEPLOYMENT.replace('replicas: 2', 'replicas: 5'));
  const applied = await k.run(['apply', '-f', dep]);
  assert.equal(applied.code, 0, applied.stderr);
  assert.equal(applied.stdout, 'deployment.apps/web configured\n');
  // Created without apply: kubectl warns it is patching in the last-applied annotation.
  assert.match(applied.stderr, /Warning: resource deployments\/web is missing the kubectl\.kubernetes\.io\/last-applied-configuration annotation/);
  assert.equal(JSON.parse(await k.ok(['get', 'deploy', 'web', '-o', 'json'])).spec.replicas, 5);
});

test('kubectl replace -f, and a stale resourceVersion is a Conflict', async () => {
  const current = await k.ok(['get', 'cm', 'app', '-o', 'yaml']);
  const stale = manifest('stale.yaml', current.replace('one: uno', 'one: replaced'));
  assert.equal(await k.ok(['replace', '-f', stale]), 'configmap/app replaced\n');
  assert.equal(JSON.parse(await k.ok(['get', 'cm', 'app', '-o', 'json'])).data.one, 'replaced');
  const conflict = await k.fails(['replace', '-f', stale]);
  assert.equal(
    conflict,
    `Error from server (Conflict): error when replacing "${stale}": Operation cannot be fulfilled on configmaps "app": the object has been modified; please apply your changes to the latest version and try again\n`,
  );
  const missing = manifest('missing.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ghost\n');
  assert.equal(await k.fails(['replace', '-f', missing]), `Error from server (NotFound): error when replacing "${missing}": configmaps "ghost" not found\n`);
});

test('kubectl edit with a scripted KUBE_EDITOR', async () => {
  const out = await k.ok(['edit', 'cm', 'app'], { env: { KUBE_EDITOR: "sed -i -e 's/three: \"3\"/three: edited/'" } });
  assert.equal(out, 'configmap/app edited\n');
  assert.equal(JSON.parse(await k.ok(['get', 'cm', 'app', '-o', 'json'])).data.three, 'edited');
  const unchanged = await k.run(['edit', 'cm', 'app'], { env: { KUBE_EDITOR: 'true' } });
  assert.equal(unchanged.code, 0);
  assert.equal(unchanged.stderr, 'Edit cancelled, no changes made.\n');
});

test('kubectl errors: NotFound, AlreadyExists, Invalid, Forbidden by admission', async () => {
  assert.equal(await k.fails(['get', 'cm', 'nope']), 'Error from server (NotFound): configmaps "nope" not found\n');
  assert.equal(await k.fails(['get', 'deploy', 'nope', '-n', 'demo']), 'Error from server (NotFound): deployments.apps "nope" not found\n');
  assert.equal(await k.fails(['create', 'namespace', 'demo']), 'Error from server (AlreadyExists): namespaces "demo" already exists\n');
  const bad = manifest('bad.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n');
  assert.equal(
    await k.fails(['create', '-f', bad]),
    `The ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n`,
  );
  assert.equal(await k.fails(['create', 'configmap', 'x', '-n', 'missing']), 'error: failed to create configmap: namespaces "missing" not found\n');
  // A namespace being deleted refuses new objects (NamespaceLifecycle admission).
  await k.ok(['create', 'namespace', 'doomed']);
  await k.ok(['create', 'configmap', 'keep', '-n', 'doomed']);
  await k.ok(['delete', 'namespace', 'doomed', '--wait=false']);
  const forbidden = await k.fails(['create', 'configmap', 'late', '-n', 'doomed']);
  assert.equal(forbidden, 'error: failed to create configmap: configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated\n');
});

test('kubectl delete: one, -l, --all', async () => {
  assert.equal(await k.ok(['delete', 'cm', 'typo']), 'configmap "typo" deleted\n');
  assert.equal(await k.ok(['delete', 'cm', '-l', 'team=blue']), 'configmap "a-cm" deleted\nconfigmap "c-cm" deleted\n');
  assert.equal(await k.ok(['delete', 'cm', '--all', '-n', 'demo']), 'configmap "settings" deleted\n');
  assert.equal(await k.fails(['delete', 'cm', 'typo']), 'Error from server (NotFound): configmaps "typo" not found\n');
  const left = expectTable(await k.ok(['get', 'cm']), ['NAME', 'DATA', 'AGE']);
  assert.deepEqual(left.map((r) => r[0]), ['app', 'b-cm']);
});
