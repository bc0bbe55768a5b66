// The /scale subresource of a custom resource whose replicas live elsewhere
// than spec.replicas (specReplicasPath .spec.size): server-side apply of an
// autoscaling/v1 Scale (PATCH application/apply-patch+yaml; kubectl 1.32's
// `apply --subresource=scale` cannot map a Scale file), kubectl scale and
// patch --subresource=scale, and the managedFields each leaves on the object,
// as upstream's scale handler keeps them: the entry of a /scale write has
// subresource "scale", the CR's apiVersion and no time, and owns the field at
// specReplicasPath; conflicts are shown as the Scale sees them (.spec.replicas,
// managers "using autoscaling/v1").
//
// kube-apiserver 1.32.4 answers the 409 below byte for byte, but fails every
// apply to a custom resource's /scale that gets past conflicts with a 500
// ("request to convert CR to an invalid group/version: autoscaling/v1"): its
// scale field manager converts with the CR's converter. apiary completes the
// apply the way upstream's ScaleHandler lays out entries (built-in kinds' /scale
// apply works upstream the same way).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runKubectl } from '../helpers/kubectl.js';
import { assertStatus, get, request } from '../helpers/http.js';
import { startCluster, type Cluster } from '../namespaces/helpers.js';

const R = 'sizers.scale-ssa.example.com';
const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ${R}}
spec:
  group: scale-ssa.example.com
  scope: Namespaced
  names: {plural: sizers, singular: sizer, kind: Sizer}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.size, statusReplicasPath: .status.count, labelSelectorPath: .status.sel}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}, color: {type: string}}}
          status: {type: object, properties: {count: {type: integer}, sel: {type: string}}}
  - name: v2
    served: true
    storage: false
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.size, statusReplicasPath: .status.count}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}, color: {type: string}}}
          status: {type: object, properties: {count: {type: integer}, sel: {type: string}}}
`;
const BASE = '/apis/scale-ssa.example.com/v1/namespaces/default/sizers';
const APPLY = { 'content-type': 'application/apply-patch+yaml' };

let cluster: Cluster;
const kubectl = (args: string[], stdin?: string) => runKubectl(cluster.server.kubeconfigPath, args, stdin === undefined ? {} : { stdin });

async function ok(args: string[], stdin?: string): Promise<string> {
  const r = await kubectl(args, stdin);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim();
}

interface Sizer {
  metadata: { resourceVersion: string; generation: number; labels?: Record<string, string>; managedFields?: Array<Record<string, unknown>> };
  spec: Record<string, unknown>;
}

async function sizer(name: string): Promise<Sizer> {
  return JSON.parse(await ok(['get', `${R.replace('sizers.', 'sizers.v1.')}`, name, '-o', 'json', '--show-managed-fields'])) as Sizer;
}

/** Entries as [manager, operation, apiVersion, subresource, has a time, fieldsV1]. */
async function entries(name: string): Promise<unknown[]> {
  return ((await sizer(name)).metadata.managedFields ?? []).map((e) => [e['manager'], e['operation'], e['apiVersion'], e['subresource'] ?? '', e['time'] !== undefined, e['fieldsV1']]);
}

function applyScale(name: string, replicas: unknown, query = '', base = BASE): ReturnType<typeof request> {
  return request(cluster.server.url, 'PATCH', `${base}/${name}/scale?fieldManager=hpa${query}`, {
    headers: APPLY,
    raw: `apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: ${name}\n  labels: {from: scale}\nspec:\n  replicas: ${JSON.stringify(replicas)}\n`,
  });
}

before(async () => {
  cluster = await startCluster();
  await ok(['apply', '-f', '-'], CRD);
  await ok(['wait', '--for=condition=Established', `crd/${R}`, '--timeout=10s']);
});
after(() => cluster.stop());

test('apply to a custom resource /scale: the conflict as upstream words it, then forced, re-applied, taken by kubectl scale', async () => {
  await ok(['create', '-f', '-'], 'apiVersion: scale-ssa.example.com/v1\nkind: Sizer\nmetadata: {name: a}\nspec: {size: 1, color: red}\n');

  // kubectl-create owns spec.size: the Scale's applier conflicts on the Scale's own path.
  const conflict = await applyScale('a', 3);
  assertStatus(conflict, 409, 'Conflict', 'Apply failed with 1 conflict: conflict with "kubectl-create" using autoscaling/v1: .spec.replicas');
  assert.deepEqual(conflict.json.details, { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-create" using autoscaling/v1', field: '.spec.replicas' }] });
  assert.equal((await sizer('a')).spec['size'], 1);

  // A dry run answers the Scale it would write and writes nothing.
  const dry = await applyScale('a', 3, '&force=true&dryRun=All');
  assert.equal(dry.status, 200, dry.text);
  assert.deepEqual(dry.json.spec, { replicas: 3 });
  assert.equal((await sizer('a')).spec['size'], 1);

  const forced = await applyScale('a', 3, '&force=true');
  assert.equal(forced.status, 200, forced.text);
  assert.deepEqual([forced.json.apiVersion, forced.json.kind, forced.json.spec, forced.json.status], ['autoscaling/v1', 'Scale', { replicas: 3 }, { replicas: 0 }]);
  const applied = await sizer('a');
  assert.deepEqual(applied.spec, { size: 3, color: 'red' });
  assert.equal(applied.metadata.generation, 2);
  // Only the replicas reach the object: the Scale's labels have nowhere to go.
  assert.equal(applied.metadata.labels, undefined);
  assert.deepEqual(await entries('a'), [
    ['hpa', 'Apply', 'scale-ssa.example.com/v1', 'scale', false, { 'f:spec': { 'f:size': {} } }],
    ['kubectl-create', 'Update', 'scale-ssa.example.com/v1', '', true, { 'f:spec': { '.': {}, 'f:color': {} } }],
  ]);
  assert.deepEqual((await get(cluster.server.url, `${BASE}/a/scale`)).json.spec, { replicas: 3 });

  // The same configuration again writes nothing.
  const again = await applyScale('a', 3);
  assert.equal(again.status, 200, again.text);
  assert.equal((await sizer('a')).metadata.resourceVersion, applied.metadata.resourceVersion);

  // kubectl scale (an Update through /scale, by kubectl's preferred version v2) takes the replicas from the applier.
  assert.equal(await ok(['scale', R, 'a', '--replicas=5']), `${R.replace('sizers.', 'sizer.')}/a scaled`);
  assert.deepEqual(await entries('a'), [
    ['kubectl', 'Update', 'scale-ssa.example.com/v2', 'scale', false, { 'f:spec': { 'f:size': {} } }],
    ['kubectl-create', 'Update', 'scale-ssa.example.com/v1', '', true, { 'f:spec': { '.': {}, 'f:color': {} } }],
  ]);
  const taken = await applyScale('a', 7);
  assertStatus(taken, 409, 'Conflict', 'Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using autoscaling/v1: .spec.replicas');
  assert.equal(await ok(['get', R, 'a', '--subresource=scale', '-o', 'jsonpath={.spec.replicas}']), '5');
});

test('apply to /scale of an object nobody set the replicas of, through another served version', async () => {
  await ok(['create', '-f', '-'], 'apiVersion: scale-ssa.example.com/v1\nkind: Sizer\nmetadata: {name: b}\nspec: {color: blue}\n');
  const v2 = BASE.replace('/v1/', '/v2/');
  const applied = await applyScale('b', 2, '', v2);
  assert.equal(applied.status, 200, applied.text);
  assert.deepEqual(applied.json.spec, { replicas: 2 });
  assert.deepEqual(await entries('b'), [
    ['hpa', 'Apply', 'scale-ssa.example.com/v2', 'scale', false, { 'f:spec': { 'f:size': {} } }],
    ['kubectl-create', 'Update', 'scale-ssa.example.com/v1', '', true, { 'f:spec': { '.': {}, 'f:color': {} } }],
  ]);

  // A merge patch through /scale by another manager (kubectl's preferred version, v2) takes them over.
  await ok(['patch', R, 'b', '--subresource=scale', '--type=merge', '--field-manager=keda', '-p', '{"spec":{"replicas":4}}']);
  assert.equal((await sizer('b')).spec['size'], 4);
  assert.deepEqual(await entries('b'), [
    ['keda', 'Update', 'scale-ssa.example.com/v2', 'scale', false, { 'f:spec': { 'f:size': {} } }],
    ['kubectl-create', 'Update', 'scale-ssa.example.com/v1', '', true, { 'f:spec': { '.': {}, 'f:color': {} } }],
  ]);
});

test('bad /scale applies change nothing', async () => {
  await ok(['create', '-f', '-'], 'apiVersion: scale-ssa.example.com/v1\nkind: Sizer\nmetadata: {name: c}\nspec: {size: 2}\n');
  const before = await sizer('c');
  assertStatus(await applyScale('c', -1, '&force=true'), 422, 'Invalid', 'Scale.autoscaling "c" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
  assertStatus(await applyScale('nope', 1), 404, 'NotFound', `${R} "nope" not found`);
  const wrongKind = await request(cluster.server.url, 'PATCH', `${BASE}/c/scale?fieldManager=hpa`, { headers: APPLY, raw: 'apiVersion: scale-ssa.example.com/v1\nkind: Sizer\nmetadata: {name: c}\nspec: {size: 9}\n' });
  assertStatus(wrongKind, 400, 'BadRequest', 'invalid object type: scale-ssa.example.com/v1, Kind=Sizer');
  const noManager = await request(cluster.server.url, 'PATCH', `${BASE}/c/scale`, { headers: APPLY, raw: 'apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: c}\nspec: {replicas: 9}\n' });
  assert.equal(noManager.status, 422, noManager.text);
  assert.equal((await sizer('c')).metadata.resourceVersion, before.metadata.resourceVersion);
});
