// Real kubectl 1.32 against a server with apiary's controllers: a CRD with a
// schema, printer columns and status/scale subresources is applied, its
// custom resources are served (get, -o wide, explain, apply, scale, patch),
// `kubectl delete crd` removes them through the cleanup finalizer, and a
// deleted namespace loses its custom resources to the namespace controller.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runKubectl } from '../helpers/kubectl.js';
import { startCluster, waitFor, type Cluster } from '../namespaces/helpers.js';

const CRD = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/crontab-crd.yaml'), 'utf8');
const CR = `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: my-new-cron-object
spec:
  cronSpec: "* * * * */5"
  image: my-awesome-cron-image
`;

let cluster: Cluster;
const kubectl = (args: string[], stdin?: string) => runKubectl(cluster.server.kubeconfigPath, args, stdin === undefined ? {} : { stdin });

before(async () => {
  cluster = await startCluster();
});
after(() => cluster.stop());

test('kubectl apply of a CRD; it becomes Established and its resources are listed by kubectl', async () => {
  const applied = await kubectl(['apply', '-f', '-'], CRD);
  assert.equal(applied.code, 0, applied.stderr);
  assert.equal(applied.stdout.trim(), 'customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created');
  const waited = await kubectl(['wait', '--for=condition=Established', 'crd/crontabs.stable.example.com', '--timeout=10s']);
  assert.equal(waited.code, 0, waited.stderr);
  const resources = await kubectl(['api-resources', '--api-group=stable.example.com', '--no-headers']);
  assert.equal(resources.code, 0, resources.stderr);
  assert.match(resources.stdout, /^crontabs\s+ct\s+stable\.example\.com\/v1\s+true\s+CronTab$/m);
});

test('kubectl apply, get (printer columns), -o wide, explain, scale, patch of custom resources', async () => {
  const applied = await kubectl(['apply', '-f', '-'], CR);
  assert.equal(applied.code, 0, applied.stderr);
  assert.equal(applied.stdout.trim(), 'crontab.stable.example.com/my-new-cron-object created');

  const table = await kubectl(['get', 'ct']);
  assert.equal(table.code, 0, table.stderr);
  const [header, row] = table.stdout.trim().split('\n');
  assert.match(header!, /^NAME\s+SPEC\s+REPLICAS\s+AGE$/);
  // replicas was defaulted from the schema.
  assert.match(row!, /^my-new-cron-object\s+\* \* \* \* \*\/5\s+1\s+\d+s$/);
  const wide = await kubectl(['get', 'crontabs', '-o', 'wide']);
  assert.match(wide.stdout, /^NAME\s+SPEC\s+REPLICAS\s+IMAGE\s+AGE$/m);
  assert.match(wide.stdout, /my-awesome-cron-image/);

  const explained = await kubectl(['explain', 'crontab.spec']);
  assert.equal(explained.code, 0, explained.stderr);
  assert.match(explained.stdout, /KIND:\s+CronTab/);
  assert.match(explained.stdout, /cronSpec\s+<string> -required-/);
  assert.match(explained.stdout, /replicas\s+<integer>/);

  const scaled = await kubectl(['scale', 'ct', 'my-new-cron-object', '--replicas=3']);
  assert.equal(scaled.code, 0, scaled.stderr);
  assert.equal(scaled.stdout.trim(), 'crontab.stable.example.com/my-new-cron-object scaled');
  const got = JSON.parse((await kubectl(['get', 'ct', 'my-new-cron-object', '-o', 'json'])).stdout);
  assert.equal(got.spec.replicas, 3);
  assert.equal(got.metadata.generation, 2);

  const patched = await kubectl(['patch', 'ct', 'my-new-cron-object', '--type=merge', '-p', '{"spec":{"image":"other"}}']);
  assert.equal(patched.code, 0, patched.stderr);
  const bad = await kubectl(['patch', 'ct', 'my-new-cron-object', '--type=merge', '-p', '{"spec":{"replicas":20}}']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /The CronTab "my-new-cron-object" is invalid: spec\.replicas: Invalid value: 20: spec\.replicas in body should be less than or equal to 10/);
  const unknown = await kubectl(['patch', 'ct', 'my-new-cron-object', '--type=merge', '-p', '{"spec":{"bogus":1}}']);
  assert.equal(unknown.code, 0, unknown.stderr);
  assert.match(unknown.stderr, /Warning: unknown field "spec\.bogus"/);

  // A second apply computes a merge patch (custom resources take no strategic merge patch, as their OpenAPI says).
  const reapplied = await kubectl(['apply', '-f', '-'], CR.replace('my-awesome-cron-image', 'image-two'));
  assert.equal(reapplied.code, 0, reapplied.stderr);
  assert.equal(reapplied.stdout.trim(), 'crontab.stable.example.com/my-new-cron-object configured');
  assert.equal(JSON.parse((await kubectl(['get', 'ct', 'my-new-cron-object', '-o', 'json'])).stdout).spec.image, 'image-two');

  const all = await kubectl(['get', 'all', '-o', 'name']);
  assert.match(all.stdout, /^crontab\.stable\.example\.com\/my-new-cron-object$/m);
});

test('kubectl delete namespace: the namespace controller deletes its custom resources', async () => {
  assert.equal((await kubectl(['create', 'ns', 'crd-doomed'])).code, 0);
  const created = await kubectl(['apply', '-n', 'crd-doomed', '-f', '-'], CR);
  assert.equal(created.code, 0, created.stderr);
  const deleted = await kubectl(['delete', 'ns', 'crd-doomed', '--timeout=20s']);
  assert.equal(deleted.code, 0, deleted.stderr);
  const left = await kubectl(['get', 'ct', '-A', '-o', 'name']);
  assert.doesNotMatch(left.stdout, /crd-doomed/);
  assert.equal((await kubectl(['get', 'ns', 'crd-doomed'])).code, 1);
});

test('kubectl delete crd removes its custom resources through the cleanup finalizer, then the CRD', async () => {
  const deleted = await kubectl(['delete', 'crd', 'crontabs.stable.example.com', '--timeout=20s']);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.equal(deleted.stdout.trim(), 'customresourcedefinition.apiextensions.k8s.io "crontabs.stable.example.com" deleted');
  const gone = await kubectl(['get', 'crd', 'crontabs.stable.example.com']);
  assert.match(gone.stderr, /NotFound/);
  // Discovery and the CR endpoints follow.
  await waitFor('crontabs to leave discovery', async () => {
    const r = await kubectl(['api-resources', '--api-group=stable.example.com', '--no-headers']);
    return r.stdout.trim() === '' ? true : undefined;
  });
  // Recreating the CRD serves an empty collection: the objects were deleted, not hidden.
  assert.equal((await kubectl(['apply', '-f', '-'], CRD)).code, 0);
  await kubectl(['wait', '--for=condition=Established', 'crd/crontabs.stable.example.com', '--timeout=10s']);
  const list = await kubectl(['get', 'ct', '-A', '-o', 'name']);
  assert.equal(list.code, 0, list.stderr);
  assert.equal(list.stdout.trim(), '');
});
