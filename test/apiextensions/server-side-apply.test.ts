// Server-side apply and managedFields of custom resources, with real kubectl
// 1.32: the merge follows the CRD's structural schema (list-type map/set/
// atomic, map-type atomic, preserve-unknown-fields, embedded resources,
// int-or-string). Every expected managedFields list (fixtures/
// widget-ssa-managed-fields.json, times left out) was recorded from
// kube-apiserver v1.32.4 running the same kubectl commands on the same CRD.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runKubectl } from '../helpers/kubectl.js';
import { startCluster, type Cluster } from '../namespaces/helpers.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const CRD = fs.readFileSync(path.join(fixtures, 'widget-ssa-crd.yaml'), 'utf8');
const expected = JSON.parse(fs.readFileSync(path.join(fixtures, 'widget-ssa-managed-fields.json'), 'utf8')) as Record<string, unknown[]>;
const R = 'widgets.crd-ssa.example.com';

const W1 = `apiVersion: crd-ssa.example.com/v1
kind: Widget
metadata: {name: w1, labels: {a: b}, annotations: {x: "yes"}}
spec:
  replicas: 2
  color: red
  size: 10%
  tags: [a, b]
  set: [p, q]
  ports: [{name: http, port: 80}, {name: dns, protocol: UDP, port: 53}]
  labels: {k: v}
  atomicMap: {k: v}
  atomicStruct: {a: x}
  free: {deep: {x: 1}, list: [1, 2]}
  typedFree: {known: k, other: {o: 1}}
  embedded: {apiVersion: v1, kind: ConfigMap, metadata: {name: e, labels: {l: v}}, data: {a: b}}
`;
const OTHER = `apiVersion: crd-ssa.example.com/v1
kind: Widget
metadata: {name: w1}
spec: {replicas: 5, ports: [{name: extra, port: 8080}]}
`;

let cluster: Cluster;
const kubectl = (args: string[], stdin?: string) => runKubectl(cluster.server.kubeconfigPath, args, stdin === undefined ? {} : { stdin });

async function ok(args: string[], stdin?: string): Promise<string> {
  const r = await kubectl(args, stdin);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim();
}

async function getWidget(name: string): Promise<{ metadata: { managedFields: Array<Record<string, unknown>>; resourceVersion: string; generation: number }; spec: Record<string, unknown>; status?: Record<string, unknown> }> {
  return JSON.parse(await ok(['get', R, name, '-o', 'json', '--show-managed-fields']));
}

async function managedFields(name: string): Promise<unknown[]> {
  const w = await getWidget(name);
  for (const e of w.metadata.managedFields) {
    if (e['subresource'] !== 'scale') assert.match(String(e['time']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    delete e['time'];
  }
  return w.metadata.managedFields;
}

before(async () => {
  cluster = await startCluster();
  await ok(['apply', '-f', '-'], CRD);
  await ok(['wait', '--for=condition=Established', `crd/${R}`, '--timeout=10s']);
});
after(() => cluster.stop());

test('kubectl apply --server-side of a custom resource: create, unchanged re-apply, field removal', async () => {
  assert.equal(await ok(['apply', '--server-side', '-f', '-'], W1), 'widget.crd-ssa.example.com/w1 serverside-applied');
  assert.deepEqual(await managedFields('w1'), expected['applied']);
  const created = await getWidget('w1');
  // The map-list key takes its schema default (protocol TCP); the int-or-string stays a string.
  assert.deepEqual(created.spec['ports'], [
    { name: 'http', port: 80, protocol: 'TCP' },
    { name: 'dns', port: 53, protocol: 'UDP' },
  ]);
  assert.equal(created.spec['size'], '10%');

  assert.equal(await ok(['apply', '--server-side', '-f', '-'], W1), 'widget.crd-ssa.example.com/w1 serverside-applied');
  assert.equal((await getWidget('w1')).metadata.resourceVersion, created.metadata.resourceVersion, 'an unchanged apply writes nothing');

  const smaller = W1.replace('  color: red\n', '').replace('  atomicMap: {k: v}\n', '').replace(', {name: dns, protocol: UDP, port: 53}', '');
  await ok(['apply', '--server-side', '-f', '-'], smaller);
  const w = await getWidget('w1');
  assert.equal(w.spec['color'], undefined);
  assert.equal(w.spec['atomicMap'], undefined);
  assert.deepEqual(w.spec['ports'], [{ name: 'http', port: 80, protocol: 'TCP' }]);
  assert.equal(w.metadata.generation, 2);
  assert.deepEqual(await managedFields('w1'), expected['fieldRemoved']);
});

test('a conflict with another manager, then --force-conflicts; map-list items merge granularly', async () => {
  const conflict = await kubectl(['apply', '--server-side', '--field-manager=other', '-f', '-'], OTHER);
  assert.notEqual(conflict.code, 0);
  assert.match(conflict.stderr, /^error: Apply failed with 1 conflict: conflict with "kubectl": \.spec\.replicas\n/);
  assert.equal((await getWidget('w1')).spec['replicas'], 2);

  await ok(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', '-'], OTHER);
  const w = await getWidget('w1');
  assert.equal(w.spec['replicas'], 5);
  // "other" adds its port beside kubectl's: the list is a map keyed by name and protocol.
  assert.deepEqual(w.spec['ports'], [
    { name: 'http', port: 80, protocol: 'TCP' },
    { name: 'extra', port: 8080, protocol: 'TCP' },
  ]);
  assert.deepEqual(await managedFields('w1'), expected['forced']);

  // A /scale write of owned replicas moves them to a "scale" entry (without a time), as upstream.
  await ok(['scale', R, 'w1', '--replicas=6']);
  const scaled = await getWidget('w1');
  assert.equal(scaled.spec['replicas'], 6);
  assert.equal(scaled.metadata.managedFields.find((e) => e['subresource'] === 'scale')?.['time'], undefined);
  assert.deepEqual(await managedFields('w1'), expected['scaledOwned']);
});

test('a field the schema does not declare fails the apply as upstream', async () => {
  const r = await kubectl(['apply', '--server-side', '-f', '-'], 'apiVersion: crd-ssa.example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {bogus: 1}\n');
  assert.notEqual(r.code, 0);
  assert.equal(
    r.stderr.trim(),
    'Error from server: failed to create typed patch object (default/w1; crd-ssa.example.com/v1, Kind=Widget): .spec.bogus: field not declared in schema',
  );
});

test('managedFields of a plain create, a /status apply, a /scale write and a merge patch', async () => {
  await ok(['create', '-f', '-'], 'apiVersion: crd-ssa.example.com/v1\nkind: Widget\nmetadata: {name: w3, labels: {a: b}}\nspec: {color: red, ports: [{name: a, port: 1}], free: {x: {"true": 1}}}\n');
  assert.deepEqual(await managedFields('w3'), expected['created']);

  await ok(['apply', '--server-side', '--subresource=status', '--field-manager=ctl', '-f', '-'], 'apiVersion: crd-ssa.example.com/v1\nkind: Widget\nmetadata: {name: w3}\nstatus: {phase: Ready, replicas: 1}\n');
  assert.deepEqual(await managedFields('w3'), expected['statusApplied']);
  assert.deepEqual((await getWidget('w3')).status, { phase: 'Ready', replicas: 1 });

  // Nobody owned spec.replicas: upstream records no entry for the /scale write.
  await ok(['scale', R, 'w3', '--replicas=4']);
  assert.equal((await getWidget('w3')).spec['replicas'], 4);
  assert.deepEqual(await managedFields('w3'), expected['scaled']);

  await ok(['patch', R, 'w3', '--type=merge', '-p', '{"spec":{"labels":{"p":"q"}}}']);
  assert.deepEqual(await managedFields('w3'), expected['patched']);
});
