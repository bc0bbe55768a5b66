import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { definitionByName, definitionFor, fieldOf, fieldsOf, hasProtobuf, hasStatus, schemaSources, specFieldNames } from '../../src/api/schema/index.js';

test('registry describes the served kinds with upstream names, numbers and markers', () => {
  const cm = definitionFor('', 'v1', 'ConfigMap');
  assert.equal(cm?.name, 'io.k8s.api.core.v1.ConfigMap');
  assert.deepEqual(fieldOf(cm!, 'binaryData')?.proto, { number: 3, wire: 'bytes', repeated: true });
  assert.equal(fieldOf(definitionFor('', 'v1', 'Pod')!, 'spec')?.ref, 'io.k8s.api.core.v1.PodSpec');
  assert.equal(definitionFor('apps', 'v1', 'Deployment')?.name, 'io.k8s.api.apps.v1.Deployment');
  assert.equal(definitionFor('coordination.k8s.io', 'v1', 'LeaseList')?.name, 'io.k8s.api.coordination.v1.LeaseList');
  assert.equal(hasStatus('', 'v1', 'Pod'), true);
  assert.equal(hasStatus('', 'v1', 'ConfigMap'), false);
  assert.equal(hasProtobuf('meta.k8s.io', 'v1', 'Table'), false);
  assert.equal(hasProtobuf('', 'v1', 'Secret'), true);
  // Inline embeddings are flattened for JSON: SecretKeySelector carries LocalObjectReference's name.
  const selector = definitionByName('io.k8s.api.core.v1.SecretKeySelector')!;
  assert.deepEqual(fieldsOf(selector).map((f) => f.name), ['name', 'key', 'optional']);
  assert.equal(selector.fields[0]?.inline, true);
  assert.equal(selector.fields[0]?.proto?.number, 1);
});

test('the generated registry matches the module versions tools/schemagen pins', () => {
  const gomod = readFileSync(new URL('../../tools/schemagen/go.mod', import.meta.url), 'utf8');
  for (const mod of ['k8s.io/api', 'k8s.io/apimachinery', 'k8s.io/client-go']) {
    const m = new RegExp(`^\\s*${mod.replace(/\./g, '\\.')} (v\\S+)$`, 'm').exec(gomod);
    assert.ok(m, `${mod} in go.mod`);
    assert.equal(schemaSources[mod], m[1], `${mod}: regenerate types.generated.json after changing go.mod`);
  }
});

test('markers and status helpers', () => {
  const podSpec = definitionByName('io.k8s.api.core.v1.PodSpec')!;
  const containers = fieldOf(podSpec, 'containers')!;
  assert.equal(containers.patchMergeKey, 'name');
  assert.equal(containers.listType, 'map');
  assert.deepEqual(containers.listMapKeys, ['name']);
  assert.equal(containers.required, true);
  assert.deepEqual(fieldOf(podSpec, 'volumes')?.patchStrategy, 'merge,retainKeys');
  assert.equal(fieldOf(definitionByName('io.k8s.api.core.v1.ContainerPort')!, 'protocol')?.default, 'TCP');
  assert.equal(fieldOf(definitionByName('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')!, 'finalizers')?.listType, 'set');
  assert.deepEqual(specFieldNames('', 'v1', 'Namespace'), ['spec']);
  assert.deepEqual(specFieldNames('', 'v1', 'ConfigMap'), ['immutable', 'data', 'binaryData']);
});
