import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findDuplicateFields, pruneObject, unknownFieldMessage } from '../../src/api/schema/prune.js';

test('pruneObject drops unknown fields everywhere and reports them as upstream does', () => {
  const pod: Record<string, unknown> = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { a: 'b' }, bogus: 1 },
    spec: {
      containers: [
        { name: 'c', image: 'i', extra: true, env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 's', key: 'k', nope: 1 } } }] },
      ],
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      foo: 'bar',
    },
    status: { phase: 'Running' },
    top: 1,
  };
  const dropped = pruneObject('', 'v1', 'Pod', pod);
  assert.deepEqual(dropped, [
    'metadata.bogus',
    'spec.containers[0].extra',
    'spec.containers[0].env[0].valueFrom.secretKeyRef.nope',
    'spec.foo',
    'top',
  ]);
  assert.deepEqual(pod, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { a: 'b' } },
    spec: {
      containers: [{ name: 'c', image: 'i', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }],
      nodeSelector: { 'kubernetes.io/os': 'linux' },
    },
    status: { phase: 'Running' },
  });
  assert.equal(unknownFieldMessage(dropped[3]!), 'unknown field "spec.foo"');
});

test('pruneObject keeps free-form values and resource maps', () => {
  const cm: Record<string, unknown> = {
    metadata: { name: 'x', managedFields: [{ manager: 'm', fieldsV1: { 'f:data': { 'f:a': {} } } }] },
    data: { anything: 'goes' },
  };
  assert.deepEqual(pruneObject('', 'v1', 'ConfigMap', cm), []);
  assert.deepEqual((cm.metadata as { managedFields: unknown[] }).managedFields, [{ manager: 'm', fieldsV1: { 'f:data': { 'f:a': {} } } }]);
  const node: Record<string, unknown> = { status: { capacity: { cpu: '4', memory: '1Gi' }, images: [{ names: ['a'], sizeBytes: 1, odd: 2 }] } };
  assert.deepEqual(pruneObject('', 'v1', 'Node', node), ['status.images[0].odd']);
  assert.deepEqual(pruneObject('example.com', 'v1', 'Widget', { a: 1 }), []);
});

test('findDuplicateFields reports repeated keys with their paths', () => {
  const raw = '{"metadata":{"name":"a","labels":{"x":"1","x":"2"},"name":"b"},"data":{"k":"v"},"items":[{"a":1,"a":2}],"data":{}}';
  assert.deepEqual(findDuplicateFields(raw), ['metadata.labels.x', 'metadata.name', 'items[0].a', 'data']);
  assert.deepEqual(findDuplicateFields('{"a":"\\"a\\"","b":"a"}'), []);
  assert.deepEqual(findDuplicateFields('{not json'), []);
});

test('findDuplicateFields decodes escaped keys, skips escaped quotes and looks inside nested arrays', () => {
  // "a\u0062" is the key "ab"; a value ending in an escaped backslash ends at the next quote.
  assert.deepEqual(findDuplicateFields('{"a\\u0062":1,"ab":2}'), ['ab']);
  assert.deepEqual(findDuplicateFields('{"a":"x\\\\","a":1}'), ['a']);
  assert.deepEqual(findDuplicateFields('{"a":"q\\"a\\"","b":1}'), []);
  assert.deepEqual(findDuplicateFields('{"s":[[1,{"k":1}],[{"k":1,"k":2}]]}'), ['s[1][0].k']);
  assert.deepEqual(findDuplicateFields('[{"a":1},{"a":1}]'), []);
  // Duplicates in a body that is not JSON are not reported (the decoder reports the syntax error).
  assert.deepEqual(findDuplicateFields('{"a":1,"a":2'), []);
  assert.deepEqual(findDuplicateFields('{"a":1,"a":2,"b":"unterminated}'), []);
});
