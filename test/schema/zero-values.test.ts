// The zero-value walk's two modes agree: zeroValuesWouldChange (which the
// field manager asks before copying an object) is true exactly when
// fillZeroValues changes the object, for every kind the schema registry
// describes, and asking changes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fillZeroValues, zeroValuesWouldChange } from '../../src/api/schema/zero-values.js';
import { definitionFor } from '../../src/api/schema/index.js';
import generated from '../../src/api/schema/types.generated.json' with { type: 'json' };
import { deepCopy } from '../../src/machinery/deep-copy.js';

const kinds = Object.keys((generated as unknown as { kinds: Record<string, string> }).kinds).map((k) => k.split('/') as [string, string, string]);

/** Bodies with absent fields, present zeros, nulls and empty collections, at the top and nested. */
function samples(): Record<string, unknown>[] {
  return [
    {},
    {
      metadata: { name: 'x', labels: null, annotations: {}, finalizers: [], managedFields: [], generation: 0 },
      spec: {
        replicas: 0,
        paused: false,
        template: { metadata: {}, spec: { containers: [{ name: '', image: '', ports: [{ containerPort: 0, protocol: '' }] }], hostNetwork: false } },
        ports: [],
        selector: null,
      },
      status: {},
      data: null,
      immutable: false,
    },
  ];
}

test('zeroValuesWouldChange tells, without changing it, whether fillZeroValues changes an object (every kind, both modes)', () => {
  assert.ok(kinds.length > 100);
  let changedCases = 0;
  for (const [group, version, kind] of kinds) {
    assert.ok(definitionFor(group, version, kind), `${group}/${version}/${kind}`);
    for (const sample of samples()) {
      for (const dropZeroScalars of [false, true]) {
        const object = deepCopy(sample);
        const before = JSON.stringify(object);
        const would = zeroValuesWouldChange(group, version, kind, object, { dropZeroScalars });
        assert.equal(JSON.stringify(object), before, 'asking changed the object');
        fillZeroValues(group, version, kind, object, { dropZeroScalars });
        const changed = JSON.stringify(object) !== before;
        assert.equal(would, changed, `${group}/${version}/${kind} dropZeroScalars=${dropZeroScalars}`);
        if (changed) changedCases++;
        // Filled once, nothing is left to change.
        assert.equal(zeroValuesWouldChange(group, version, kind, object, { dropZeroScalars }), false, `${group}/${version}/${kind} filled twice`);
      }
    }
  }
  assert.ok(changedCases > 0);
});

test('a dropped omitempty zero and a kept non-omitempty zero, as Go encodes them', () => {
  // Deployment: spec.paused is an omitempty bool (left out when false); spec.template.metadata.creationTimestamp prints null.
  const d: Record<string, unknown> = { metadata: { name: 'd' }, spec: { paused: false, template: { metadata: {} } } };
  assert.equal(zeroValuesWouldChange('apps', 'v1', 'Deployment', d, { dropZeroScalars: true }), true);
  fillZeroValues('apps', 'v1', 'Deployment', d, { dropZeroScalars: true });
  const spec = d['spec'] as Record<string, unknown>;
  assert.equal('paused' in spec, false);
  assert.deepEqual((spec['template'] as { metadata: unknown }).metadata, { creationTimestamp: null });
  // A ConfigMap as created holds nothing to drop: the field manager reads it without a copy.
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'n', uid: 'u', creationTimestamp: '2026-01-01T00:00:00Z' }, data: { k: 'v' } };
  assert.equal(zeroValuesWouldChange('', 'v1', 'ConfigMap', cm, { dropZeroScalars: true }), false);
});
